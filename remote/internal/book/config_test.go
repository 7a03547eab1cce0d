package book

import (
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote/internal/move"
)

// options are the settings of the books the tests make, as package
// remote's Config gives them: a zero field takes remote's default.
type options[I any] struct {
	Queue       int // the runtime's bound, which the book keeps behind a pacer
	Window      int
	Unordered   bool
	MaxBatch    int
	MaxAttempts int
	Lease       time.Duration
	TagWait     time.Duration
	Tag         func(I) string
	Heartbeat   time.Duration
	MaxPrefetch int
	Drain       time.Duration // 0: the book wants no workers (remote's default is 30 s)
	Key         func(I) string
	Weights     map[string]int
	Quantum     time.Duration // 0: a millisecond, as remote's default
	MaxMoves    int           // 0: remote's default
	Moves       func(I) int
}

// Package remote's defaults, which the tests take.
const (
	DefaultWindow      = 4096
	DefaultMaxBatch    = 64
	DefaultMaxAttempts = 3
	DefaultLease       = time.Minute
	DefaultTagWait     = time.Minute
	DefaultHeartbeat   = time.Second
	DefaultMaxPrefetch = 256
	DefaultMaxMoves    = 16
	NoPrefetch         = -1
	heartbeatMisses    = 3
)

// Result is what the tests' books emit for an item, as parallel.Result.
type Result[O any] struct {
	Seq   uint64
	Value O
	Err   error
	Path  []move.Step
}

// newBook returns the book o describes, emitting Results.
func newBook[I, O any](o options[I]) (*Book[I, O, Result[O]], error) {
	or := func(v, def int) int {
		if v == 0 {
			return def
		}
		return v
	}
	ord := func(v, def time.Duration) time.Duration {
		if v == 0 {
			return def
		}
		return v
	}
	prefetch := or(o.MaxPrefetch, DefaultMaxPrefetch)
	if prefetch == NoPrefetch {
		prefetch = 0
	}
	heartbeat := ord(o.Heartbeat, DefaultHeartbeat)
	maxBatch := or(o.MaxBatch, DefaultMaxBatch)
	return New(Config[I, O, Result[O]]{
		Window: or(o.Window, DefaultWindow), Queue: or(o.Queue, max(agent.DefaultQueue, maxBatch)), MaxBatch: maxBatch,
		MaxAttempts: or(o.MaxAttempts, DefaultMaxAttempts), Prefetch: prefetch, Unordered: o.Unordered,
		Lease: ord(o.Lease, DefaultLease), TagWait: ord(o.TagWait, DefaultTagWait), Tag: o.Tag,
		Heartbeat: heartbeat, Silence: heartbeatMisses * heartbeat, Drain: o.Drain,
		Key: o.Key, Weights: o.Weights, Quantum: ord(o.Quantum, time.Millisecond),
		MaxMoves: or(o.MaxMoves, DefaultMaxMoves), Moves: o.Moves,
		Result: func(seq uint64, v O, err error, path []move.Step) Result[O] {
			return Result[O]{Seq: seq, Value: v, Err: err, Path: path}
		},
	}), nil
}

// evolve is Evolve for the tests' books.
func evolve[I, O any](b *Book[I, O, Result[O]], m agent.Msg) (*Book[I, O, Result[O]], []agent.Effect) {
	return Evolve(b, m)
}
