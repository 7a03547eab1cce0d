package core

import "github.com/evolvekit/evolve/agent"

// adjust hands the agent a Set message, unless it has ended, so that Set
// reaches the agents of a running chain as it does a lone agent.
func (m *Member[I]) adjust(msg agent.Msg) error {
	if !m.h.post(msg) {
		return agent.ErrClosed
	}
	return nil
}
