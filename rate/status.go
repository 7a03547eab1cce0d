package rate

import (
	"time"

	"github.com/rs/zerolog"
)

// Status is a snapshot of a rate agent, as [State.Status] and
// [Agent.Status] return it.
type Status struct {
	Rate   float64 // refill rate, tokens per second
	Burst  int     // capacity of the bucket
	Tokens float64 // tokens in the bucket at the instant of the snapshot
	Queue  int     // bound of the input queue, in items
	Queued int     // items waiting to be emitted
	Passed int     // items emitted so far
	Demand int     // values downstream will still take
	Closed bool    // input has ended
}

// Status returns a snapshot of s at instant at, with the bucket refilled up
// to at. It does not change s.
func (s State[T]) Status(at time.Time) Status {
	return Status{
		Rate: s.bucket.limit.Rate, Burst: s.bucket.limit.Burst,
		Tokens: max(s.bucket.level(at), 0), Queue: s.bound, Queued: len(s.queue),
		Passed: s.passed, Demand: s.demand, Closed: s.closed,
	}
}

// MarshalZerologObject writes st as the fields of one zerolog object, so
// LogStatus logs it field by field.
func (st Status) MarshalZerologObject(e *zerolog.Event) {
	e.Float64("rate", st.Rate).Int("burst", st.Burst).Float64("tokens", st.Tokens).
		Int("queue", st.Queue).Int("queued", st.Queued).Int("passed", st.Passed).
		Int("demand", st.Demand).Bool("closed", st.Closed)
}
