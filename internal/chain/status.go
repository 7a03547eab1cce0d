package chain

import (
	"context"
	"fmt"

	"github.com/evolvekit/evolve/agent"
)

// Reading is the status of one agent of a chain: its name, its Load, and
// the status its agent package defines, as Detail.
type Reading struct {
	Name   string
	Load   agent.Load
	Detail any
}

// Status asks every agent for its status, first to last, one round trip
// each (none for one that has finished). It returns their readings, and
// the items the overflow gate dropped, if the chain has one. An error
// names the agent whose status could not be had; the readings then hold
// those of the agents before it.
func (c *Chain[I]) Status(ctx context.Context) (agents []Reading, dropped int, err error) {
	for _, m := range c.members {
		v, l, err := m.Status(ctx)
		if err != nil {
			return agents, dropped, fmt.Errorf("status of %s: %w", m.Name(), err)
		}
		agents = append(agents, Reading{Name: m.Name(), Load: l, Detail: v})
		if g, ok := v.(overflowStatus); ok {
			dropped += g.Dropped
		}
	}
	return agents, dropped, nil
}

// LogStatus writes one structured zerolog event per agent, as each
// agent's LogStatus does, on the agent's goroutine.
func (c *Chain[I]) LogStatus() {
	for _, m := range c.members {
		m.LogStatus()
	}
}
