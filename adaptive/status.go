package adaptive

import "github.com/evolvekit/evolve/parallel"

// Status is a snapshot of an adaptive agent, as its handle's Status returns
// it and LogStatus logs it: a parallel agent's [parallel.Status] (the
// agent.Load in items, the limit in force, the queue, the counts), the
// bounds of the limit, and the controller's name and view. The agent makes
// no batches, so MaxBatch and Batch are 1 and Batches equals InFlight.
type Status struct {
	parallel.Status
	// Min and Max bound the limit.
	Min, Max int
	// Controller names the controller; View is what it believes now.
	Controller string
	View       View
}

// Status returns the snapshot of s that a Query is answered with.
func (s State[In, Out]) Status() Status {
	return Status{Status: s.p.Status(), Min: s.min, Max: s.max, Controller: s.ctl.Name(), View: s.ctl.View()}
}
