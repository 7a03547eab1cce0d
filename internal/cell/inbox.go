package cell

import (
	"sync"

	"github.com/evolvekit/evolve/internal/fair"
)

// inbox is where everything sent to an agent waits for its actor: the items
// posted or passed on to it, the demand granted to it, the results of its
// work and every other message. Senders append under one mutex; the first
// sender after the actor went idle takes the inbox's token (scheduled) and
// sends the actor one wake message, and the actor then takes in all that has
// gathered at once. So a busy agent costs one actor message per batch, not
// one per item. A chain neighbour that takes the token as it takes in its own
// inbox notes the agent in its relay instead, and takes the agent's inbox in
// after its own, on its goroutine (see relay).
//
// The inbox also keeps the input queue's credits: Post takes one per item,
// and evolve gives them back with agent.Demand.
type inbox[I any] struct {
	mu sync.Mutex

	items  []I     // posted or passed on, in order
	size   int     // how many items the actor took last: room for as many is made at once
	pull   int     // demand granted since the actor last looked
	others []other // Close, Query, Set and timer firings, in order
	more   bool    // the agent's work has results waiting (see crew)

	scheduled bool // a wake is in the actor's mailbox, or the actor is taking in

	credits int           // free slots of the input queue
	bound   int           // the queue's bound: credits never exceed it
	space   chan struct{} // closed when credits come back; nil while no Post waits

	// keyOf, for an agent whose items have keys, names an item's key:
	// Post lets no key hold more of the credits than keys allows.
	keyOf func(I) string
	keys  *fair.Counts

	closed  bool // input has ended: Close, Stop, the end or a failure
	stopped bool // the agent has ended or is stopping: nothing more is taken
}

// other is a message that is not an item, with its place among the items:
// it came after the first after of them.
type other struct {
	after int
	m     any
}

// add appends m to the other messages, after the items that came before it.
// The caller holds mu.
func (in *inbox[I]) add(m any) {
	in.others = append(in.others, other{after: len(in.items), m: m})
}

// put appends items, making room for as many as the actor took last when
// the slice is new, so that a busy inbox grows its slice once per round.
// The caller holds mu.
func (in *inbox[I]) put(items ...I) {
	if in.items == nil {
		in.items = make([]I, 0, max(in.size, len(items)))
	}
	in.items = append(in.items, items...)
}

// wake is the actor message that tells a cell to take in its inbox.
type wake struct{}

// schedule marks the inbox as having a wake on the way and reports whether
// the caller must send it. The caller holds mu.
func (in *inbox[I]) schedule() bool {
	if in.scheduled {
		return false
	}
	in.scheduled = true
	return true
}

// empty reports whether nothing waits for the actor. The caller holds mu.
func (in *inbox[I]) empty() bool {
	return len(in.items) == 0 && in.pull == 0 && len(in.others) == 0 && !in.more
}

// refill lets Posts waiting for a slot look again. The caller holds mu.
func (in *inbox[I]) refill() {
	if in.space != nil {
		close(in.space)
		in.space = nil
	}
}

// waitSpace returns a channel that is closed once credits come back or the
// input closes. The caller holds mu.
func (in *inbox[I]) waitSpace() <-chan struct{} {
	if in.space == nil {
		in.space = make(chan struct{})
	}
	return in.space
}

// spend takes a credit for v and reports true, if one is free and v's
// key, if items have keys, holds fewer than its bound; else it reports
// false. The caller holds mu.
func (in *inbox[I]) spend(v I) bool {
	if in.credits <= 0 {
		return false
	}
	if in.keyOf != nil && !in.keys.Take(in.keyOf(v)) {
		return false
	}
	in.credits--
	return true
}

// release gives back the credits the keys of runs held, one an item: the
// items whose slots Demand gives back. The caller holds mu.
func (in *inbox[I]) release(runs []fair.Run) {
	if in.keys != nil {
		in.keys.Release(runs)
	}
}

// drop lets go of everything waiting, once the agent has stopped. The
// caller holds mu.
func (in *inbox[I]) drop() {
	in.items, in.others, in.pull, in.more, in.size = nil, nil, 0, false, 0
}
