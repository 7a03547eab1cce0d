package spawn

import (
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/budget"
	"github.com/evolvekit/evolve/internal/safe"
)

// Workers is what an agent's status says of its workers, for a chain that
// shares its workers among its stages (compose.WithWorkers): see
// Spec.Workers.
type Workers struct {
	// Queued counts the items waiting for a worker.
	Queued int
	// Busy counts the workers at work now: the agent.Start effects whose
	// work has not come back, each taking one worker.
	Busy int
	// Done counts the items whose work has ended so far, failed or not.
	Done int
	// Limit is the most workers the agent may keep busy at once.
	Limit int
}

// share returns the budget's view of spec's Workers and Limit, or nil for
// an agent that shares no workers. A status that is missing (an agent that
// gave none), or that Workers panics on, reads as nothing: the sharing
// goes on, and the agent keeps what it has.
func share[S, W, R, O any](spec Spec[S, W, R, O]) *budget.Share {
	if spec.Workers == nil {
		return nil
	}
	return &budget.Share{
		Read: func(at time.Time, status any) budget.Reading {
			var w Workers
			if status == nil || safe.Do(func() { w = spec.Workers(status) }) != nil {
				return budget.Reading{At: at}
			}
			return budget.Reading{At: at, Queued: w.Queued, Busy: w.Busy, Done: w.Done, Limit: w.Limit}
		},
		Limit: func(at time.Time, n int) agent.Msg { return agent.Stamp(spec.Limit(n), at) },
	}
}
