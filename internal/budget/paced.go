package budget

import "github.com/evolvekit/evolve/agent"

// Paced returns r, the reading of a stage that takes its items from a
// pacer just before it in a chain (see package pace), with the items that
// wait for it in the pacer counted in its queue; pacer is the pacer's
// load. Such a stage takes items only as it can start them, so what waits
// for it waits in the pacer's queue rather than in its own.
//
// The pacer's items wait for the stage beyond the room the stage has
// opened and the pacer not yet used, its Demand: those it passes on as
// its tokens allow. An unbounded Demand (the stage has broken) leaves none
// waiting. The queue counted is at most bound, the stage's own queue's
// bound (when above 0), as it was when the stage took items in ahead of
// starting them: a pacer with a long queue does not make the stage after
// it outweigh a stage whose backlog waits in a queue of its own. Without
// that bound a stage held up by those after it would keep the workers
// they need.
func Paced(r Reading, pacer agent.Load, bound int) Reading {
	if pacer.Demand.IsUnbounded() {
		return r
	}
	waiting := pacer.Queued - max(int(pacer.Demand), 0)
	if waiting <= 0 {
		return r
	}
	q := r.Queued + waiting
	if bound > 0 {
		q = min(q, max(bound, r.Queued))
	}
	r.Queued = q
	return r
}
