package adaptive

import (
	"github.com/evolvekit/evolve/parallel"
	"github.com/rs/zerolog"
)

// Status is a snapshot of an adaptive agent, as [agent.Handle.Status]
// returns it and [agent.Handle.LogStatus] logs it: everything a parallel
// agent reports (the limit in force, the queue, the work in flight, the
// counts), the bounds of the limit, and the controller's name and view.
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

// MarshalZerologObject writes st as the fields of one zerolog object, with
// snake_case names: those of parallel.Status, then min, max, controller,
// phase, throughput (items per second) and latency.
func (st Status) MarshalZerologObject(e *zerolog.Event) {
	st.Status.MarshalZerologObject(e)
	e.Int("min", st.Min).
		Int("max", st.Max).
		Str("controller", st.Controller).
		Str("phase", st.View.Phase).
		Float64("throughput", st.View.Throughput).
		Dur("latency", st.View.Latency)
}
