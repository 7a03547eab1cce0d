package remote

import (
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/trace"
	"github.com/evolvekit/evolve/remote/internal/book"
	"github.com/evolvekit/evolve/remote/internal/master"
	"github.com/evolvekit/evolve/remote/internal/move"
	"github.com/evolvekit/evolve/remote/internal/wire"
	"github.com/rs/zerolog"
)

// New starts the master of a remote stage on rt, on its own, listening for
// its workers on cfg.Node under cfg.Name. Post items to the handle it
// returns; workers that call [Work] with the node's address and the
// stage's name pull them, and each item's [Result] goes to sink, in input
// order unless cfg.Unordered. Items wait in the queue while no worker is
// registered. After Close, Wait returns once every accepted item has been
// emitted, with the first failure, as a parallel agent's does; the workers
// are then told the stage has finished. What the master refuses of its
// peers, it logs to rt's logger.
func New[I, O any](rt *agent.Runtime, cfg Config[I], sink func(Result[O])) (agent.Handle[I, Status], error) {
	if rt == nil {
		return nil, invalid("runtime must not be nil")
	}
	spec, err := build[I, O](cfg)
	if err != nil {
		return nil, err
	}
	h, err := core.Spawn[I, Status](rt, spec, sink)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// Stage returns a remote stage for a compose chain, in the place of a
// parallel stage: it passes on the values of the items that succeeded, and
// the chain's Wait reports the first failure, as with parallel.Stage. Each
// time the chain starts, the stage listens on cfg.Node under cfg.Name.
func Stage[I, O any](cfg Config[I]) (agent.Stage[I, O], error) {
	spec, err := build[I, O](cfg)
	if err != nil {
		return agent.Stage[I, O]{}, err
	}
	return core.Wrap(core.MapOut(core.NewStage[I, Status](spec), value[O])), nil
}

// value passes on the value of a result that succeeded.
func value[O any](r Result[O]) (O, bool) { return r.Value, r.Err == nil }

// spec describes the master's agent: its book, stepped by evolve, and its
// link to the workers, which package master opens.
type spec[I, O any] = core.Spec[*book.Book[I, O, Result[O]], struct{}, struct{}, Result[O]]

// build checks cfg and describes the master's agent.
func build[I, O any](cfg Config[I]) (spec[I, O], error) {
	if cfg.Node == nil {
		return spec[I, O]{}, invalid("node must not be nil")
	}
	if err := cfg.validate(); err != nil {
		return spec[I, O]{}, err
	}
	cfg = cfg.withDefaults()
	n := cfg.Node.n
	link := master.Config{Name: cfg.Name, Append: cfg.Codec.Append, Decode: cfg.Codec.Decode, MaxSlots: cfg.MaxSlots, Prefetch: cfg.grant(),
		Heartbeat: cfg.Heartbeat, Lease: cfg.Lease, WorkError: workError, OnWant: cfg.OnWant, MaxMoves: cfg.MaxMoves, OnMove: cfg.OnMove, Timed: cfg.Key != nil}
	return spec[I, O]{
		Name:        cfg.Name,
		State:       book.New(bookConfig[I, O](cfg)),
		Evolve:      evolve[I, O],
		Queue:       cfg.Queue,
		Key:         keyOf(cfg.Key),
		KeyQueue:    cfg.KeyQueue,
		DeadLetters: cfg.DeadLetters,
		Measure:     measure,
		Reserves:    true,
		Takes: []agent.Msg{agent.Event[book.Joined]{}, agent.Event[book.Asked]{}, agent.Event[book.Outcomes[O]]{}, agent.Event[book.Moves[I]]{},
			agent.Event[book.Left]{}, agent.Event[book.Lost]{}, agent.Event[book.Refused]{}, agent.Event[book.Beat]{}},
		Follow: trace.Follow[struct{}, Result[O]]{Seq: func(r Result[O]) uint64 { return r.Seq }},
		Open: func(post func(agent.Msg) bool, log zerolog.Logger, spans *trace.Line) (core.Port, error) {
			run := link
			run.Spans = spans
			return master.Open[I, O](n, run, post, log)
		},
	}, nil
}

// keyOf returns key as the key of the items Post takes, nil for none.
func keyOf[I any](key func(I) string) any {
	if key == nil {
		return nil
	}
	return key
}

// bookConfig returns the settings of the book of a master cfg describes,
// its defaults filled in.
func bookConfig[I, O any](cfg Config[I]) book.Config[I, O, Result[O]] {
	return book.Config[I, O, Result[O]]{
		Window: cfg.Window, Queue: cfg.Queue, MaxBatch: cfg.MaxBatch, MaxAttempts: cfg.MaxAttempts, Prefetch: cfg.grant(),
		Unordered: cfg.Unordered, Lease: cfg.Lease, TagWait: cfg.TagWait, Tag: cfg.Tag,
		Key: cfg.Key, Weights: cfg.Weights, Quantum: cfg.Quantum,
		Heartbeat: cfg.Heartbeat, Silence: wire.Misses * cfg.Heartbeat, Drain: cfg.Drain, MaxMoves: cfg.MaxMoves, Moves: cfg.Moves,
		Result: func(seq uint64, v O, err error, path []move.Step) Result[O] {
			return Result[O]{Seq: seq, Value: v, Err: err, Path: path}
		},
	}
}

// evolve is the master's behaviour: its book's, but for a Query, which it
// answers with the Status of what the book knows.
func evolve[I, O any](b *book.Book[I, O, Result[O]], m agent.Msg) (*book.Book[I, O, Result[O]], []agent.Effect) {
	if q, ok := m.(agent.Query); ok {
		return b, []agent.Effect{agent.Reply[Status]{To: q.ID, Value: statusOf(b.Snapshot())}}
	}
	return book.Evolve(b, m)
}

// workError is the error of a task whose work failed on the worker at
// addr, with text.
func workError(addr, text string) error { return &WorkError{Worker: addr, Text: text} }
