package parallel

import "github.com/rs/zerolog"

// Status is a snapshot of a parallel agent, as [agent.Handle.Status] returns
// it and [agent.Handle.LogStatus] logs it.
type Status struct {
	// Limit is the current limit; Queue the input bound; Unordered whether
	// results are emitted as they finish; Run the most items a batch may
	// hold (Config.Run).
	Limit     int
	Queue     int
	Unordered bool
	Run       int
	// Queued counts items accepted but not started. InFlight counts the
	// batches in flight, each worked on by one worker, one item at a time:
	// at most Limit, unless the limit was lowered since they started.
	// Assigned counts the items of those batches, finished or not, and
	// Batch is how many items the next batch may hold (see [Evolve]). Held
	// counts the results finished but not yet emitted: waiting for an
	// earlier item (in input order) or for downstream demand.
	Queued   int
	InFlight int
	Assigned int
	Batch    int
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
		Run:       s.run,
		Queued:    s.waiting.Len(),
		InFlight:  s.running.Len(),
		Assigned:  s.assigned,
		Batch:     s.batch(),
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
		Int("run", st.Run).
		Int("queued", st.Queued).
		Int("in_flight", st.InFlight).
		Int("assigned", st.Assigned).
		Int("batch", st.Batch).
		Int("held", st.Held).
		Int("demand", st.Demand).
		Int("accepted", st.Accepted).
		Int("done", st.Done).
		Int("failed", st.Failed).
		Int("emitted", st.Emitted).
		Bool("closed", st.Closed)
}
