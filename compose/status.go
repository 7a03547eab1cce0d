package compose

import (
	"context"
	"fmt"

	"github.com/evolvekit/evolve/agent"
)

// Status is a snapshot of a chain: the chain's Load, its settings, and the
// status of each of its agents, first to last (a stage an agent package
// makes is one agent; the overflow gate of DropOldest is one more, first).
//
// The chain's Load adds up its agents': Queued, InFlight and Failed are
// their sums; Done is the last one's (what has come out of the chain) and
// Demand the sink's, which is unbounded.
type Status struct {
	agent.Load
	Name     string
	Overflow Overflow
	// Bound is the sum of the stages' input bounds: the ceiling of the
	// items inside the chain but those its last stage works on (see the
	// package doc, Backpressure).
	Bound int
	// Dropped counts the items the Overflow policy dropped.
	Dropped int
	Agents  []AgentStatus
}

// AgentStatus is the status of one agent of a chain: its name, its Load,
// and the status its agent package defines (a parallel.Status, say) as
// Detail.
type AgentStatus struct {
	Name string
	agent.Load
	Detail any
}

// Status asks every agent for its status, first to last, one round trip
// each (none for one that has finished).
func (c *chain[I]) Status(ctx context.Context) (Status, error) {
	st := Status{Name: c.name, Overflow: c.overflow, Bound: c.bound, Dropped: int(c.dropped.Load())}
	for _, m := range c.members {
		v, l, err := m.Status(ctx)
		if err != nil {
			return st, fmt.Errorf("compose: status of %s: %w", m.Name(), err)
		}
		st.Agents = append(st.Agents, AgentStatus{Name: m.Name(), Load: l, Detail: v})
		st.Queued += l.Queued
		st.InFlight += l.InFlight
		st.Failed += l.Failed
		st.Done, st.Demand = l.Done, l.Demand
		if g, ok := v.(overflowStatus); ok {
			st.Dropped += g.Dropped
		}
	}
	return st, nil
}

// LogStatus writes one structured zerolog event per stage, as each agent's
// LogStatus does, and one for the chain, with its name, overflow, bound and
// the drops of DropNewest. It does not wait for the stages' events, which
// each agent writes on its own goroutine, so they may come in any order;
// the chain's event is written on the caller's goroutine.
func (c *chain[I]) LogStatus() {
	for _, m := range c.members {
		m.LogStatus()
	}
	c.log.Info().Str("overflow", c.overflow.String()).Int("bound", c.bound).
		Int("dropped", int(c.dropped.Load())).Msg("status")
}
