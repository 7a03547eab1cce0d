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
func (h *handle[I]) Status(ctx context.Context) (Status, error) {
	st := Status{Name: h.c.Name(), Overflow: h.overflow, Bound: h.c.Bound(), Dropped: int(h.dropped.Load())}
	agents, dropped, err := h.c.Status(ctx)
	for _, a := range agents {
		st.Agents = append(st.Agents, AgentStatus{Name: a.Name, Load: a.Load, Detail: a.Detail})
		st.Queued += a.Load.Queued
		st.InFlight += a.Load.InFlight
		st.Failed += a.Load.Failed
		st.Done, st.Demand = a.Load.Done, a.Load.Demand
	}
	st.Dropped += dropped
	if err != nil {
		return st, fmt.Errorf("compose: %w", err)
	}
	return st, nil
}

// LogStatus writes one structured zerolog event per stage, as each agent's
// LogStatus does, and one for the chain, with its name, overflow, bound and
// the drops of DropNewest. It does not wait for the stages' events, which
// each agent writes on its own goroutine, so they may come in any order;
// the chain's event is written on the caller's goroutine.
func (h *handle[I]) LogStatus() {
	h.c.LogStatus()
	h.c.Log().Info().Str("overflow", h.overflow.String()).Int("bound", h.c.Bound()).
		Int("dropped", int(h.dropped.Load())).Msg("status")
}
