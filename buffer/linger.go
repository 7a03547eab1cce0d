package buffer

import "github.com/evolvekit/evolve/agent"

// arm starts the linger timer of the open batch once it holds an item, if
// MaxWait is set and no timer runs for it yet. The timer carries the batch's
// generation: when its Tick arrives after the batch was cut by size or by
// Close, the generation has moved on and the Tick is ignored.
func (s *State[T]) arm(fx []agent.Effect) []agent.Effect {
	if s.maxWait == 0 || s.armed || len(s.open) == 0 {
		return fx
	}
	s.armed = true
	return append(fx, agent.Timer{Tag: s.gen, Delay: s.maxWait})
}

// disarm cancels the linger timer of a batch that was cut before its timer
// fired, so the runtime keeps no timer for a batch that is gone.
func (s *State[T]) disarm(fx []agent.Effect) []agent.Effect {
	if !s.stale {
		return fx
	}
	s.stale = false
	return append(fx, agent.Disarm{Tag: s.staleTag})
}
