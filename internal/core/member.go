package core

import (
	"context"
	"errors"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/cell"
	"github.com/evolvekit/evolve/internal/pace"
	"github.com/evolvekit/evolve/internal/trace"
)

// Member is a running agent of a chain, with the type of the items it
// takes: its Post, TryPost and Feed may convert them first (see MapIn).
type Member[I any] struct {
	h       anyAgent
	post    func(context.Context, I) error
	tryPost func(I) error
	feed    func(items []I, from *cell.Relay)
	refused *refusals
	status  func(context.Context) (any, error) // the agent's Status, its V as any
}

// anyAgent is a *cell.Agent whatever its types: what a Member needs of it.
type anyAgent interface {
	Name() string
	Close()
	Wait(context.Context) error
	Done() <-chan struct{}
	LogStatus()
	Halt()
	Stop(context.Context) error
	PullVia(n int, r *cell.Relay)
	Relay() *cell.Relay
	WhenDone(func())
	Hand() *trace.Hand
}

// Name returns the agent's name.
func (m *Member[I]) Name() string { return m.h.Name() }

// Post hands v to the agent, as agent.Handle's Post does.
func (m *Member[I]) Post(ctx context.Context, v I) error { return m.post(ctx, v) }

// TryPost hands v to the agent if its queue has room.
func (m *Member[I]) TryPost(v I) error { return m.tryPost(v) }

// Feed passes items on to the agent from the agent before it, which holds
// demand for them. It is called on that agent's goroutine, so items arrive
// in order and before Close.
func (m *Member[I]) Feed(items []I) { m.feed(items, nil) }

func (m *Member[I]) pullVia(n int, r *cell.Relay) { m.h.PullVia(n, r) }

func (m *Member[I]) relayOf() *cell.Relay { return m.h.Relay() }

// reserve hands the agent, a pacer, a reservation of n passes, or the
// news that the agent after it has ended (last); it reports false once the
// agent has ended.
func (m *Member[I]) reserve(n int, last bool) bool {
	return cell.Send(m.h, pace.In(pace.Reservation{N: n, Last: last})) == nil
}

// pass brings the agent n passes it reserved.
func (m *Member[I]) pass(n int) { _ = cell.Send(m.h, pace.In(pace.Pass{N: n})) }

// paced tells the agent that the pacer before it takes its demand from
// the room it opens.
func (m *Member[I]) paced() { _ = cell.Send(m.h, pace.In(pace.Paced{})) }

// Close ends the agent's input.
func (m *Member[I]) Close() { m.h.Close() }

// Wait returns once the agent is done, with its error joined to one that
// counts the items MapIn refused.
func (m *Member[I]) Wait(ctx context.Context) error {
	err := m.h.Wait(ctx)
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return err
	}
	return errors.Join(err, m.refused.err(m.h.Name()))
}

// Done returns a channel closed once the agent is done.
func (m *Member[I]) Done() <-chan struct{} { return m.h.Done() }

// Status returns the agent's status and the Load it embeds (zero if none).
func (m *Member[I]) Status(ctx context.Context) (any, agent.Load, error) {
	v, err := m.status(ctx)
	if err != nil {
		return nil, agent.Load{}, err
	}
	return v, cell.LoadOf(v), nil
}

// LogStatus writes the agent's status to the runtime's logger.
func (m *Member[I]) LogStatus() { m.h.LogStatus() }

// Halt stops the agent without waiting.
func (m *Member[I]) Halt() { m.h.Halt() }

// Stop stops the agent and waits for its goroutines.
func (m *Member[I]) Stop(ctx context.Context) error { return m.h.Stop(ctx) }

// WhenDone calls f once the agent is done.
func (m *Member[I]) WhenDone(f func()) { m.h.WhenDone(f) }
