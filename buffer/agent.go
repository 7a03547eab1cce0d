package buffer

import (
	"context"

	"github.com/evolvekit/evolve/agent"
)

// Flush writes one batch somewhere: a bulk insert, a bulk API call. The
// runtime calls it in a goroutine of its own, one batch at a time, in input
// order; ctx ends when the agent is stopped. An error, or a panic (which
// becomes an *agent.PanicError), marks the batch failed: it is not emitted,
// and the first such error is what Wait returns. Flush must not modify
// batch, or keep it after returning: the same slice is emitted afterwards.
type Flush[T any] func(ctx context.Context, batch []T) error

// Agent is a running buffer agent: Post items to it, Close it, Wait for the
// last batch. Its Status method returns a [Status]. An Agent is safe for
// concurrent use; each Post costs one actor message, each flush one
// goroutine.
type Agent[T any] struct {
	*agent.Handle[T, Status]
}

// New starts a buffer agent on rt that batches items as cfg says, flushes
// each batch with flush, and hands each flushed batch to sink on the agent's
// own goroutine (a nil sink discards them). It returns an [ErrConfig] naming
// the field at fault when cfg is not valid or flush is nil, and
// agent.ErrClosed when rt has been shut down.
func New[T any](rt *agent.Runtime, cfg Config, flush Flush[T], sink func([]T)) (*Agent[T], error) {
	sp, err := spec(cfg, flush)
	if err != nil {
		return nil, err
	}
	sp.Sink = sink
	h, err := agent.Spawn(rt, sp)
	if err != nil {
		return nil, err
	}
	return &Agent[T]{h}, nil
}

// spec describes the agent cfg and flush make, with no sink.
func spec[T any](cfg Config, flush Flush[T]) (agent.Spec[State[T], T, []T, struct{}, []T, Status], error) {
	var sp agent.Spec[State[T], T, []T, struct{}, []T, Status]
	if flush == nil {
		return sp, invalid("flush must not be nil")
	}
	s, err := NewState[T](cfg)
	if err != nil {
		return sp, err
	}
	sp.Name, sp.State, sp.Evolve, sp.Queue = s.cfg.Name, s, Evolve[T], s.cfg.Queue
	sp.Run = func(ctx context.Context, b []T) (struct{}, error) { return struct{}{}, flush(ctx, b) }
	return sp, nil
}
