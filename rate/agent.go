package rate

import (
	"context"
	"math"
	"sync"
	"sync/atomic"

	"github.com/evolvekit/evolve/agent"
)

// Agent is a running rate agent: Post values to it, and it hands them to its
// sink unchanged and in order, no faster than its token bucket allows. Close
// it and Wait for the last one. Its Status method returns a [Status].
//
// An Agent is safe for concurrent use; its zero value is not usable, [New]
// makes one. A Post costs one call of [Config.Cost], one channel receive and
// one actor message.
type Agent[T any] struct {
	h    *agent.Handle[Item[T], Status]
	cost func(T) float64

	mu    sync.Mutex   // orders SetLimit calls, so burst is the last one sent
	burst atomic.Int64 // the burst posted costs are checked against
}

// New starts a rate agent on rt that lets the values posted to it through at
// cfg's rate and burst, and hands them to sink on the agent's own goroutine
// (a nil sink discards them). It returns an [ErrConfig] naming the field of
// cfg at fault, and agent.ErrClosed when rt has been shut down.
func New[T any](rt *agent.Runtime, cfg Config[T], sink func(T)) (*Agent[T], error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	sp := spec(cfg)
	sp.Sink = sink
	h, err := agent.Spawn(rt, sp)
	if err != nil {
		return nil, err
	}
	a := &Agent[T]{h: h, cost: cfg.Cost}
	a.burst.Store(int64(cfg.Burst))
	return a, nil
}

// Name returns the agent's name, as it appears in logs.
func (a *Agent[T]) Name() string { return a.h.Name() }

// Post hands v to the agent, blocking while its input queue is full. It
// returns an [ErrCost] if [Config.Cost] refuses v, ctx.Err() if ctx ends
// first, and agent.ErrClosed after Close or Stop; in each case v was not
// posted.
func (a *Agent[T]) Post(ctx context.Context, v T) error {
	it, err := a.item(v)
	if err != nil {
		return err
	}
	return a.h.Post(ctx, it)
}

// TryPost hands v to the agent if its input queue has room. It returns
// agent.ErrFull if not, an [ErrCost] if [Config.Cost] refuses v, and
// agent.ErrClosed after Close or Stop. It never blocks.
func (a *Agent[T]) TryPost(v T) error {
	it, err := a.item(v)
	if err != nil {
		return err
	}
	return a.h.TryPost(it)
}

// SetLimit changes the rate and burst while the agent runs: the bucket
// refills at the old rate up to the instant the agent sees the change and at
// the new one from then on. It returns an [ErrConfig] naming the bad value,
// leaving the limit unchanged, and agent.ErrClosed once the agent has
// stopped. It does not wait for the change to take effect.
//
// Costs posted after SetLimit returns are checked against the new burst. An
// item posted concurrently with a change that shrinks the burst may cost more
// than the new burst; the agent then charges it the full burst.
func (a *Agent[T]) SetLimit(rate float64, burst int) error {
	l := Limit{Rate: rate, Burst: burst}
	if err := l.check(); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := agent.Adjust(a.h, l); err != nil {
		return err
	}
	a.burst.Store(int64(burst))
	return nil
}

// Close ends the agent's input: later Posts return agent.ErrClosed, and the
// agent finishes once every item it accepted has been emitted. Close does not
// wait; Wait does. Calling Close more than once is harmless.
func (a *Agent[T]) Close() { a.h.Close() }

// Wait blocks until the agent has finished after Close: every accepted item
// emitted. It returns nil, the error of a panicking sink, agent.ErrStopped if
// the agent was stopped first, or ctx.Err() if ctx ends first.
func (a *Agent[T]) Wait(ctx context.Context) error { return a.h.Wait(ctx) }

// Done returns a channel that is closed when the agent has finished or
// stopped.
func (a *Agent[T]) Done() <-chan struct{} { return a.h.Done() }

// Status returns a snapshot of the agent, with the bucket's tokens as of the
// instant the agent answers. It returns agent.ErrClosed once the agent has
// stopped, and ctx.Err() if ctx ends first.
func (a *Agent[T]) Status(ctx context.Context) (Status, error) { return a.h.Status(ctx) }

// LogStatus asks the agent to write its Status to the runtime's logger as
// one structured event. It does not wait for it to be written.
func (a *Agent[T]) LogStatus() { a.h.LogStatus() }

// Stop ends the agent now, dropping the items still waiting, and waits until
// it has stopped or ctx ends. For a graceful end, Close and Wait first. Stop
// is idempotent.
func (a *Agent[T]) Stop(ctx context.Context) error { return a.h.Stop(ctx) }

// item builds the Item for v, checking the cost Config.Cost gives it.
func (a *Agent[T]) item(v T) (Item[T], error) {
	return itemFor(a.cost, v, int(a.burst.Load()))
}

// itemFor builds the Item for v, checking the cost cost gives it against
// burst; a nil cost makes every item cost 1.
func itemFor[T any](cost func(T) float64, v T, burst int) (Item[T], error) {
	if cost == nil {
		return Item[T]{Value: v}, nil
	}
	c := cost(v)
	if err := checkCost(c, burst); err != nil {
		return Item[T]{}, err
	}
	return Item[T]{Value: v, Cost: c}, nil
}

// spec describes the agent cfg (with its defaults filled in) makes, with no
// sink.
func spec[T any](cfg Config[T]) agent.Spec[State[T], Item[T], struct{}, struct{}, T, Status] {
	return agent.Spec[State[T], Item[T], struct{}, struct{}, T, Status]{
		Name:   cfg.Name,
		State:  newState(cfg),
		Evolve: Evolve[T],
		Queue:  cfg.Queue,
	}
}

// checkCost returns an [ErrCost] if a bucket of the given burst can never
// pay c.
func checkCost(c float64, burst int) error {
	switch {
	case math.IsNaN(c):
		return costError("cost must be a number, got NaN")
	case c < 0:
		return costError("cost must not be negative, got %v", c)
	case c > float64(burst):
		return costError("cost %v exceeds burst %d", c, burst)
	}
	return nil
}
