package parallel

import "github.com/rs/zerolog"

// Status is a snapshot of a parallel agent, as [agent.Handle.Status] returns
// it and [agent.Handle.LogStatus] logs it.
type Status struct {
	// Limit is the current limit; Queue the input bound; Unordered whether
	// results are emitted as they finish.
	Limit     int
	Queue     int
	Unordered bool
	// Queued counts items accepted but not started, InFlight the work
	// running, Held the results finished but not yet emitted: waiting for an
	// earlier item (in input order) or for downstream demand.
	Queued   int
	InFlight int
	Held     int
	// Demand is how many more values downstream will accept
	// (agent.Unbounded when nobody throttles the agent).
	Demand int
	// Accepted counts the items taken in, Done the work finished (failed or
	// not), Failed the work that returned an error or panicked, Emitted the
	// results passed on.
	Accepted int
	Done     int
	Failed   int
	Emitted  int
	// Closed is true once the input has ended.
	Closed bool
}

// Status returns the snapshot of s that a Query is answered with.
func (s State[In, Out]) Status() Status {
	return Status{
		Limit:     s.limit,
		Queue:     s.queue,
		Unordered: s.unordered,
		Queued:    s.waiting.Len(),
		InFlight:  s.running.Len(),
		Held:      s.held.Len(),
		Demand:    s.demand,
		Accepted:  int(s.accepted),
		Done:      s.done,
		Failed:    s.failed,
		Emitted:   int(s.emitted),
		Closed:    s.closed,
	}
}

// MarshalZerologObject writes st as the fields of one zerolog object, with
// snake_case names.
func (st Status) MarshalZerologObject(e *zerolog.Event) {
	e.Int("limit", st.Limit).
		Int("queue", st.Queue).
		Bool("unordered", st.Unordered).
		Int("queued", st.Queued).
		Int("in_flight", st.InFlight).
		Int("held", st.Held).
		Int("demand", st.Demand).
		Int("accepted", st.Accepted).
		Int("done", st.Done).
		Int("failed", st.Failed).
		Int("emitted", st.Emitted).
		Bool("closed", st.Closed)
}
