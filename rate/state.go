package rate

import (
	"time"

	"github.com/evolvekit/evolve/internal/fair"
	"github.com/evolvekit/evolve/internal/fifo"
)

// State is everything a rate agent knows: its bucket, the items waiting for
// tokens, the demand it holds, its one pending timer and its counts. Build one
// with [NewState]; its zero value is not usable.
//
// A State is a value: [Evolve] returns the next one and leaves the one it
// was given as it was, so an earlier State can be kept, read or evolved
// again. It keeps its queue in a persistent queue (package internal/fifo):
// a new State costs O(1) time per item queued or passed on (amortized),
// whatever the items waiting; two States evolved from one share memory, so
// they must not be used on two goroutines at once.
type State[T any] struct {
	bucket bucket
	queue  fifo.Queue[Item[T]] // items waiting, oldest first
	bound  int                 // Config.Queue, for Status

	// keyOf and line, with a Key: the items wait in a line per key, and
	// enter the queue in the keys' turns as tokens come (see keys.go);
	// staged holds the keys of those in the queue.
	keyOf  func(T) string
	line   *fair.Queue[string, Item[T]]
	staged stagedKeys

	demand int // values downstream will still take
	passed int // items emitted so far

	tag   uint64    // names the pending timer; a Tick with another tag is stale
	due   time.Time // when the pending timer ticks
	armed bool      // a timer with tag is pending

	// The passes of the agent after this one in a chain (see package
	// internal/pace): paced once it may reserve some, owed those reserved
	// and not yet granted, granted those granted so far, last once it has
	// ended, drained once it said so.
	paced, last, drained bool
	owed, granted        int

	closed   bool // input has ended
	finished bool // Finish was returned

	// shared says the agent's limit is a Shared one's grant: it reports
	// its use after each Limit it takes, and once when items wait while it
	// holds no token to come (asked).
	shared, asked bool
}

// NewState returns the initial state of a rate agent for cfg: a full bucket,
// an empty queue and no demand until a Pull message grants some. It returns
// an [ErrConfig] naming the field of cfg at fault. cfg.Cost is not used:
// costs arrive in each [Item].
func NewState[T any](cfg Config[T]) (State[T], error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return State[T]{}, err
	}
	return newState(cfg), nil
}

// newState returns the initial state for a checked cfg.
func newState[T any](cfg Config[T]) State[T] {
	line, _ := keyLine(cfg) // withDefaults checked it
	if cfg.Shared != nil {
		return State[T]{bucket: newBucket(Limit{}), bound: cfg.Queue, shared: true, keyOf: cfg.Key, line: line}
	}
	return State[T]{bucket: newBucket(cfg.limit()), bound: cfg.Queue, keyOf: cfg.Key, line: line}
}

// head returns the tokens the next waiting item takes, choosing it from
// the keys' lines if need be; an item waits.
func (s *State[T]) head() float64 {
	s.stage(1)
	return s.queue.At(0).price(s.bucket.limit.Burst)
}
