package core

import (
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/cell"
)

// Set hands the agent behind h an agent.Set message carrying c, for a
// change of its settings while it runs. h is an agent this module runs, a
// handle that embeds one, or a [Member]. It returns agent.ErrClosed once
// the agent has ended, and an error when h is none of those. It does not
// wait for the change to take effect.
func Set[C any](h any, c C) error {
	return Adjust(h, agent.Set[C]{Value: c})
}

// Adjust hands the agent behind h m, an agent.Set message made elsewhere
// (by a budget.Share, say), as Set does; the agent stamps it anew.
func Adjust(h any, m agent.Msg) error {
	if mb, ok := h.(interface{ agentOf() anyAgent }); ok {
		h = mb.agentOf()
	}
	return cell.Send(h, m)
}

// agentOf returns the agent m runs, for Adjust: Set reaches the agents of
// a running chain as it does a lone agent.
func (m *Member[I]) agentOf() anyAgent { return m.h }
