package buffer

import (
	"context"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/trace"
)

// Flush writes one batch somewhere: a bulk insert, a bulk API call. The
// runtime calls it in a goroutine of its own, one batch at a time, in input
// order; ctx ends when the agent is stopped. An error, or a panic (which
// becomes an *agent.PanicError), marks the batch failed: it is not emitted,
// and the first such error is what Wait returns. Flush must not modify
// batch, or keep it after returning: the same slice is emitted afterwards.
// A nil Flush writes nothing: each batch is passed on as it is cut, for a
// chain that only wants batches.
type Flush[T any] func(ctx context.Context, batch []T) error

// New starts a buffer agent on rt that batches items as cfg says, flushes
// each batch with flush (a nil flush writes nothing), and hands each flushed
// batch to sink on the agent's own goroutine (a nil sink discards them). Its Status is a [Status]; with
// [Config.MaxWeight] set, its Post and TryPost weigh each item and refuse a
// negative weight with an [ErrWeight]. It returns an [ErrConfig] naming the
// field at fault when cfg is not valid or rt is nil, and agent.ErrClosed once rt has shut down.
func New[T any](rt *agent.Runtime, cfg Config[T], flush Flush[T], sink func([]T)) (agent.Handle[T, Status], error) {
	if rt == nil {
		return nil, invalid("runtime must not be nil")
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if !cfg.weighed() {
		h, err := core.Spawn[T, Status](rt, spec(cfg, flush), sink)
		if err != nil {
			return nil, err
		}
		return h, nil
	}
	h, err := core.Spawn[Item[T], Status](rt, spec(cfg, flush), sink)
	if err != nil {
		return nil, err
	}
	return &weighing[T]{Agent: h, weigh: cfg.Weight}, nil
}

// Stage returns a buffer agent as one stage of a chain (see package compose):
// it batches the items passed to it as cfg says, flushes each batch with
// flush, one at a time, and passes each flushed batch on; with a nil flush
// it passes each batch on as it is cut. A batch whose flush
// fails is not passed on; the first failure is the stage's error. An item
// [Config.Weight] refuses is dropped, counted, and reported by the chain's
// Wait. It returns an [ErrConfig] naming the field at fault when cfg is not
// valid.
func Stage[T any](cfg Config[T], flush Flush[T]) (agent.Stage[T, []T], error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return agent.Stage[T, []T]{}, err
	}
	if !cfg.weighed() {
		return core.Wrap(core.NewStage[T, Status](spec(cfg, flush))), nil
	}
	weigh := func(v T) (Item[T], error) { return weighItem(cfg.Weight, v) }
	return core.Wrap(core.MapIn(core.NewStage[Item[T], Status](spec(cfg, flush)), weigh)), nil
}

// spec describes the agent cfg (with its defaults filled in) and flush
// make. A nil flush still runs as work that does nothing, so that a batch
// is passed on in the same order, and under the same bounds, as a written
// one; that work runs inline, on the agent's goroutine, with no worker to
// hand each batch to.
func spec[T any](cfg Config[T], flush Flush[T]) core.Spec[State[T], []T, struct{}, []T] {
	inline := flush == nil
	if inline {
		flush = func(context.Context, []T) error { return nil }
	}
	s, _ := NewState(cfg)
	return core.Spec[State[T], []T, struct{}, []T]{
		Name:      cfg.Name,
		State:     s,
		Evolve:    Evolve[T],
		Step:      (*State[T]).step,
		StepInput: (*State[T]).stepInput,
		Queue:     cfg.Queue,
		Inline:    inline,
		// The dead letters of failed flushes.
		DeadLetters: cfg.DeadLetters,
		Work: func(ctx context.Context, _ uint64, b []T) (struct{}, error) {
			return struct{}{}, flush(ctx, b)
		},
		// A batch is one span, linked to its items'.
		Follow: trace.Follow[[]T, []T]{Batch: func(b []T) int { return len(b) }, Batches: true},
	}
}

// weighing is a running buffer agent whose batches are cut by weight: its
// Post and TryPost weigh each item before it is posted.
type weighing[T any] struct {
	*core.Agent[Item[T], Status]
	weigh func(T) int
}

// Post weighs v and posts it, blocking while the input queue is full.
func (h *weighing[T]) Post(ctx context.Context, v T) error {
	it, err := weighItem(h.weigh, v)
	if err != nil {
		return err
	}
	return h.Agent.Post(ctx, it)
}

// TryPost weighs v and posts it if the input queue has room.
func (h *weighing[T]) TryPost(v T) error {
	it, err := weighItem(h.weigh, v)
	if err != nil {
		return err
	}
	return h.Agent.TryPost(it)
}
