package buffer

import (
	"time"

	"github.com/rs/zerolog"
)

// Status is a snapshot of a buffer agent, as [State.Status] and the agent's
// Status method return it. Each field's comment says whether it counts items
// or batches.
type Status struct {
	Size    int           // items in a full batch
	MaxWait time.Duration // linger time; 0 when none
	Queue   int           // bound of the input queue, in items

	Pending  int       // items in the open batch
	Oldest   time.Time // when the open batch's first item arrived; zero when Pending is 0
	Waiting  int       // batches cut and waiting for their flush
	Queued   int       // items held against Queue: Pending plus the items of waiting batches
	Flushing int       // items in the batch being flushed; 0 when no flush runs

	Flushed int   // batches flushed and emitted
	Failed  int   // batches whose flush failed; they were not emitted
	Demand  int   // batches downstream will still take, the one being flushed included
	Closed  bool  // input has ended
	Err     error // the first flush error; nil when none failed
}

// Status returns a snapshot of s.
func (s State[T]) Status() Status {
	queued := len(s.open)
	for _, b := range s.ready {
		queued += len(b)
	}
	return Status{
		Size: s.cfg.Size, MaxWait: s.cfg.MaxWait, Queue: s.cfg.Queue,
		Pending: len(s.open), Oldest: s.openedAt, Waiting: len(s.ready),
		Queued: queued, Flushing: len(s.flight),
		Flushed: s.flushed, Failed: s.failed, Demand: s.demand,
		Closed: s.closed, Err: s.err,
	}
}

// MarshalZerologObject writes st as the fields of one zerolog object, so
// LogStatus logs it field by field. Err is the first flush error, nil when
// none failed.
func (st Status) MarshalZerologObject(e *zerolog.Event) {
	e.Int("size", st.Size).Dur("max_wait", st.MaxWait).Int("queue", st.Queue).
		Int("pending", st.Pending).Int("waiting", st.Waiting).
		Int("queued", st.Queued).Int("flushing", st.Flushing).
		Int("flushed", st.Flushed).Int("failed", st.Failed).
		Int("demand", st.Demand).Bool("closed", st.Closed)
	if st.Pending > 0 {
		e.Time("oldest", st.Oldest)
	}
	if st.Err != nil {
		e.AnErr("err", st.Err)
	}
}
