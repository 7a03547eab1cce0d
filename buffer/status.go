package buffer

import (
	"time"

	"github.com/evolvekit/evolve/agent"
)

// Status is a snapshot of a buffer agent, as [State.Status] and its
// handle's Status return it. Its agent.Load counts items: Queued those held
// against Queue (the open batch's and those of the batches waiting for
// their flush), InFlight those being flushed, Done those whose flush has
// ended and Failed those whose flush failed; its Demand counts batches, the
// values a buffer passes on. Each other field's comment says whether it
// counts items or batches.
type Status struct {
	agent.Load
	Size      int           // the most items in a batch; 0 when weight and Queue bound it
	MaxWeight int           // the most a batch weighs; 0 when weight does not count
	MaxWait   time.Duration // linger time; 0 when none
	Queue     int           // bound of the input queue, in items

	Pending int       // items in the open batch
	Weight  int       // what the open batch weighs
	Oldest  time.Time // when the open batch's first item arrived; zero when Pending is 0
	Waiting int       // batches cut and waiting for their flush

	Flushed       int   // batches flushed and emitted
	FailedBatches int   // batches whose flush failed; they were not emitted
	Closed        bool  // input has ended
	Err           error // the first flush error; nil when none failed
}

// Status returns a snapshot of s.
func (s State[T]) Status() Status {
	queued := len(s.open)
	for _, b := range s.ready {
		queued += len(b)
	}
	return Status{
		Load: agent.Load{Queued: queued, InFlight: len(s.flight), Done: s.done, Failed: s.failed, Demand: agent.Credit(s.demand)},
		Size: s.size, MaxWeight: s.maxWeight, MaxWait: s.maxWait, Queue: s.queue,
		Pending: len(s.open), Weight: s.weight, Oldest: s.openedAt, Waiting: len(s.ready),
		Flushed: s.emitted, FailedBatches: s.lost, Closed: s.closed, Err: s.err,
	}
}
