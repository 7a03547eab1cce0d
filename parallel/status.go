package parallel

import (
	"github.com/evolvekit/evolve/agent"
)

// Status is a snapshot of a parallel agent, as its handle's Status returns
// it and LogStatus logs it. Its agent.Load counts items: Queued those
// accepted and not started, InFlight those of the batches in flight, Done
// those whose work has ended, failed or not, and Failed those that failed.
type Status struct {
	agent.Load
	// Limit is the current limit, Queue the input bound, Unordered whether
	// results are emitted as they finish, MaxBatch the most items a batch
	// may hold.
	Limit     int
	Queue     int
	Unordered bool
	MaxBatch  int
	// Batches counts the batches in flight, each worked on by one worker:
	// at most Limit, unless the limit was lowered since they started. Batch
	// is how many items the next batch may hold.
	Batches int
	Batch   int
	// Held counts the results finished but not yet emitted: waiting for an
	// earlier item (in input order) or for downstream demand.
	Held int
	// Retried counts the retries so far: the failures that earned another
	// attempt. Retrying counts the items waiting for theirs.
	Retried int
	// Moved counts the moves so far: the items whose work asked them to
	// go on with the state it reached (see the package doc, under Moves).
	Moved    int
	Retrying int
	// Accepted counts the items taken in, Emitted the results passed on.
	Accepted int
	Emitted  int
	// Closed is true once the input has ended.
	Closed bool
	// Paced is true in a chain behind a rate stage, which then holds the
	// items waiting: the agent takes them only as it can start them, and
	// Room counts those it can start as they come and has not got yet.
	Paced bool
	Room  int
	// Keys, with a [Config.Key], counts the items of each key waiting to
	// start; Started those of each key started from its line since it last
	// had none waiting or at work (items that went past the lines, of a key
	// alone, are not counted: see Fair shares in the package doc); and
	// Weights weighs each key in either.
	Keys, Started, Weights map[string]int
}

// keys fills in st's figures by key, with a Key.
func (s State[In, Out]) keys(st *Status) {
	if s.line == nil {
		return
	}
	st.Keys, st.Started, st.Weights = map[string]int{}, map[string]int{}, map[string]int{}
	s.line.Each(func(k string, queued, started, weight int) {
		if queued > 0 {
			st.Keys[k] = queued
		}
		st.Started[k], st.Weights[k] = started, weight
	})
	for i := range s.waiting.Len() {
		k := s.keyOf(s.waiting.At(i))
		st.Keys[k]++
		st.Weights[k] = s.line.Weight(k)
	}
}

// Status returns the snapshot of s that a Query is answered with.
func (s State[In, Out]) Status() Status {
	st := Status{
		Load: agent.Load{
			Queued:   s.queued(),
			InFlight: s.assigned,
			Done:     s.done,
			Failed:   s.failed,
			Demand:   agent.Credit(s.demand),
		},
		Limit:     s.limit,
		Queue:     s.queue,
		Unordered: s.unordered,
		MaxBatch:  s.maxBatch,
		Batches:   s.running.Len(),
		Batch:     s.batch(),
		Held:      s.held.Len(),
		Retried:   s.retried,
		Moved:     s.moved,
		Retrying:  s.retrying.Len(),
		Accepted:  int(s.accepted),
		Emitted:   int(s.emitted),
		Closed:    s.closed,
		Paced:     s.paced,
		Room:      s.open,
	}
	s.keys(&st)
	return st
}
