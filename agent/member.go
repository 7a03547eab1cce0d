package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Member is a running [Stage]: an agent that takes items of type I, from
// [Member.Post] when it heads a chain or from [Member.Feed] when another
// stage passes them on. Package compose holds the Members of a chain; most
// programs never touch one.
//
// A Member is safe for concurrent use.
type Member[I any] struct {
	h       running
	post    func(context.Context, I) error
	tryPost func(I) error
	feed    func([]I)
	refused *refusals
}

// running is what a Member needs of its agent's [Handle], whatever the
// agent's types.
type running interface {
	Name() string
	Close()
	Wait(context.Context) error
	Done() <-chan struct{}
	LogStatus()
	Stop(context.Context) error
	status(context.Context) (any, error)
	pull(n int)
}

// Name returns the agent's name, as it appears in logs.
func (m *Member[I]) Name() string { return m.h.Name() }

// Post hands v to the stage as [Handle.Post] does, blocking while its input
// queue is full. It is for the stage that heads a chain: its Inlet must
// leave Demand nil, or Post blocks once the queue has filled.
func (m *Member[I]) Post(ctx context.Context, v I) error { return m.post(ctx, v) }

// TryPost hands v to the stage if its input queue has room, as
// [Handle.TryPost] does.
func (m *Member[I]) TryPost(v I) error { return m.tryPost(v) }

// Feed passes items on to the stage, from the stage before it, without
// waiting: the stage before holds demand for them. It must be called from
// that stage's goroutine (in its Outlet's Deliver), so items arrive in order
// and before [Member.Close].
func (m *Member[I]) Feed(items []I) { m.feed(items) }

// Pull grants the stage demand for n more values, as the stage after it
// does when it gives input slots back.
func (m *Member[I]) Pull(n int) { m.h.pull(n) }

// Close ends the stage's input, as [Handle.Close] does.
func (m *Member[I]) Close() { m.h.Close() }

// Wait returns once the stage has finished, as [Handle.Wait] does, with the
// stage's error joined to one that counts the items [MapIn] refused.
func (m *Member[I]) Wait(ctx context.Context) error {
	err := m.h.Wait(ctx)
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return err
	}
	return errors.Join(err, m.refused.err(m.h.Name()))
}

// Done returns a channel that is closed when the stage has finished, failed
// or stopped.
func (m *Member[I]) Done() <-chan struct{} { return m.h.Done() }

// Status returns the stage's status snapshot (its agent package's Status
// type), as [Handle.Status] does.
func (m *Member[I]) Status(ctx context.Context) (any, error) { return m.h.status(ctx) }

// LogStatus writes the stage's status to the runtime's logger, as
// [Handle.LogStatus] does.
func (m *Member[I]) LogStatus() { m.h.LogStatus() }

// Stop ends the stage now, as [Handle.Stop] does.
func (m *Member[I]) Stop(ctx context.Context) error { return m.h.Stop(ctx) }

// refusals counts the items a stage refused to take in, and keeps the first
// reason.
type refusals struct {
	mu    sync.Mutex
	n     int
	first error
}

func (r *refusals) add(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	if r.first == nil {
		r.first = err
	}
}

// err describes the refusals, or returns nil if there were none.
func (r *refusals) err(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == 0 {
		return nil
	}
	return fmt.Errorf("agent %s: refused %d items passed on to it, the first because: %w", name, r.n, r.first)
}
