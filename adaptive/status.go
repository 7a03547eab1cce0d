package adaptive

import (
	"github.com/evolvekit/evolve/parallel"
	"github.com/rs/zerolog"
)

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

// MarshalZerologObject writes st as the fields of one zerolog object, with
// snake_case names: those parallel.Status writes (the Load's queued,
// in_flight, done, failed and demand, then limit, queue, unordered,
// max_batch, batches, batch, held, accepted, emitted and closed), then min,
// max, controller, phase, throughput (items per second) and latency (in
// zerolog's duration unit, milliseconds unless set otherwise).
func (st Status) MarshalZerologObject(e *zerolog.Event) {
	st.Status.MarshalZerologObject(e)
	e.Int("min", st.Min).
		Int("max", st.Max).
		Str("controller", st.Controller).
		Str("phase", st.View.Phase).
		Float64("throughput", st.View.Throughput).
		Dur("latency", st.View.Latency)
}
