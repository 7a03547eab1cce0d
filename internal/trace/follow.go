package trace

import "context"

// Follow says how an agent's work and values map onto the items it took,
// for an agent whose Starts carry work W and whose values are O. The zero
// Follow passes its values on one for one, in the order it took its items,
// and traces no work.
type Follow[W, O any] struct {
	// Items, when not nil, returns the items a Start's work takes: from
	// the Seq first on, n of them (a parallel agent's batch, or retry).
	Items func(id uint64, w W) (first uint64, n int)
	// Batch, when not nil, says a Start's work takes the Batch(w) oldest
	// items not yet batched, as one batch (a buffer's flush).
	Batch func(w W) int
	// Seq, when not nil, returns the Seq of the item a value stands for (a
	// parallel agent's Result, in input order or not).
	Seq func(v O) uint64
	// Batches says each value stands for the oldest batch (a buffer's).
	Batches bool
}

// Follower follows the items of one running agent: its Line, and how its
// work and values map onto it. A nil *Follower follows nothing, at the
// cost of a nil check per call.
type Follower[W, O any] struct {
	f Follow[W, O]
	l *Line
}

// NewFollower returns the follower of l as f says, or nil for a nil l.
func NewFollower[W, O any](l *Line, f Follow[W, O]) *Follower[W, O] {
	if l == nil {
		return nil
	}
	return &Follower[W, O]{f: f, l: l}
}

// Start returns the context the work of the Start id, on w, runs with:
// ctx itself when f is nil or does not follow the work.
func (f *Follower[W, O]) Start(ctx context.Context, id uint64, w W) context.Context {
	if f == nil {
		return ctx
	}
	switch {
	case f.f.Items != nil:
		first, n := f.f.Items(id, w)
		return f.l.Items(ctx, first, n)
	case f.f.Batch != nil:
		return f.l.Batch(ctx, f.f.Batch(w))
	}
	return ctx
}

// Emit passes on the items values stand for.
func (f *Follower[W, O]) Emit(values []O) {
	if f == nil {
		return
	}
	f.l.mu.Lock()
	defer f.l.mu.Unlock()
	for _, v := range values {
		switch {
		case f.f.Seq != nil:
			f.l.emitSeq(f.f.Seq(v))
		case f.f.Batches:
			f.l.emitBatch()
		default:
			f.l.emitNext()
		}
	}
}

// Pass hands the contexts of what was emitted to h (see Line.Pass).
func (f *Follower[W, O]) Pass(h *Hand) {
	if f != nil {
		f.l.Pass(h)
	}
}

// Dead marks the item at seq failed for good, with err after attempts.
func (f *Follower[W, O]) Dead(seq uint64, err error, attempts int) {
	if f != nil {
		f.l.Dead(seq, err, attempts)
	}
}

// Close ends the spans still open, as the agent ends.
func (f *Follower[W, O]) Close() {
	if f != nil {
		f.l.Close()
	}
}
