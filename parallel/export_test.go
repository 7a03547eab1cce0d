package parallel

import "github.com/evolvekit/evolve/agent"

// StepDones is stepDones, for the tests: what the runtime calls with the
// Dones of one round.
func (s *State[In, Out]) StepDones(ds []agent.Done[[]Result[Out]], fx []agent.Effect) []agent.Effect {
	return s.stepDones(ds, fx)
}
