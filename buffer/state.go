package buffer

import "time"

// State is everything a buffer agent knows: the open batch and its weight,
// the batches cut and waiting for their flush, the flush running, the
// demand it holds and its counts. Build one with [NewState]; its zero value
// is not usable. A State is a plain value: [Evolve] returns the next one and
// shares slices with the one it was given, so evolve each State once, as
// the runtime and package agenttest do.
type State[T any] struct {
	size, maxWeight, queue int
	maxWait                time.Duration

	open     []T       // the open batch, filling up
	weight   int       // what the open batch weighs
	openedAt time.Time // when the open batch's first item arrived
	gen      uint64    // names the open batch; its linger timer carries it
	armed    bool      // a linger timer runs for the open batch
	stale    bool      // a batch was cut while its linger timer ran
	staleTag uint64    // the tag of that timer, to disarm

	ready [][]T // batches cut and waiting for their flush, oldest first

	flight  []T    // the batch being flushed; nil when none
	started uint64 // flushes started; the running flush has this ID
	demand  int    // batches downstream will still take, the running one's included

	closed   bool  // input has ended
	finished bool  // Finish was returned
	emitted  int   // batches flushed and emitted
	lost     int   // batches whose flush failed
	done     int   // items whose flush has ended
	failed   int   // items whose flush failed
	err      error // the first flush error
}

// NewState returns the initial state of a buffer agent for cfg, or an
// [ErrConfig] naming the field of cfg at fault. The state holds no demand
// until a Pull message grants some. cfg.Weight is not used: weights arrive
// in each [Item].
func NewState[T any](cfg Config[T]) (State[T], error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return State[T]{}, err
	}
	return State[T]{size: cfg.Size, maxWeight: cfg.MaxWeight, queue: cfg.Queue, maxWait: cfg.MaxWait}, nil
}

// busy reports whether any accepted item is still to be flushed.
func (s State[T]) busy() bool {
	return len(s.open) > 0 || len(s.ready) > 0 || s.flight != nil
}
