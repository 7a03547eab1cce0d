package book

import (
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/pace"
)

// Pace: behind a pacer (a rate stage before the stage in a chain, which
// says so with a pace.Paced; package internal/pace says what the two say
// to each other), every task the book hands out, an item's first attempt
// or a later one, goes in the step of the message that brought its token,
// and starts on its worker as it comes. So:
//
//   - A worker is handed no more tasks than it has slots free (takes):
//     the tasks it asked for beyond the prefetch it was granted. A worker
//     asks for its slots and prefetch, less every task it holds (at work,
//     waiting for a slot, hung, or held from before it rejoined), so what
//     it asked for beyond its prefetch is never more than its slots free.
//     The book grants no prefetch from then on, and asks its actor, with a
//     Prefetch, to grant none to the workers that register: such a worker
//     asks for its free slots only.
//   - Its demand to the pacer is the room it opens (openRoom): the tasks
//     the workers may take, less the passes it reserved and the room open
//     already, within the window and the input bound. The items that come
//     bring a token each: the tasks handed out in their step number no more
//     than they (dispatch, within tokens), oldest first.
//   - Any item queued otherwise waits for a pass: an item taken back from
//     a worker (lost, gone, its lease expired, its work failed), or one
//     that came and found no slot (a worker went meanwhile, or it needs a
//     tag the free slots lack). The book reserves a pass for each queued
//     item that a worker could take now (reserve); a pass hands one out as
//     it comes. A token the message brought that no task used is dropped:
//     kept for later, it would let two tasks start on one token's instant.
//
// Without a pacer nothing of this runs: the book opens no room, reserves
// nothing and hands out what it may at once.

// follow makes the book, at instant at, keep the pace of the pacer before
// it, and asks its actor to grant no prefetch.
func (b *Book[I, O, R]) follow(at time.Time) []agent.Effect {
	b.paced, b.prefetch = true, 0
	fx := []agent.Effect{agent.Send[Prefetch]{Value: Prefetch{N: 0}}}
	return append(fx, b.settle(at)...)
}

// came counts n items that came behind a pacer: tokens for this message,
// and room filled.
func (b *Book[I, O, R]) came(n int) {
	b.tokens += n
	b.open = max(b.open-n, 0)
}

// pass takes the passes a pace.Pass brings, as tokens for this message,
// no more than were reserved. It reports false if it brings none.
func (b *Book[I, O, R]) pass(n int) bool {
	n = min(max(n, 0), b.reserved)
	if n == 0 {
		return false
	}
	b.reserved -= n
	b.tokens += n
	return true
}

// reserve drops the tokens the message brought that dispatch did not use,
// and asks for the passes that the queued items a worker could take now
// need beyond those reserved.
func (b *Book[I, O, R]) reserve(fx []agent.Effect) []agent.Effect {
	b.tokens = 0
	need := len(b.plan(agent.Unbounded)) - b.reserved
	if need <= 0 {
		return fx
	}
	b.reserved += need
	return withEffect(fx, pace.Out(pace.Reserve{N: need}))
}

// openRoom opens room for as many more items as the workers could take
// as they come: the tasks they may take, less those kept for the passes
// reserved and the room already open; within the window, less those too,
// and the input bound, less the items queued that hold an input slot.
// None once closed.
func (b *Book[I, O, R]) openRoom(fx []agent.Effect) []agent.Effect {
	if b.closed {
		return fx
	}
	places := 0
	for i := range b.workers {
		places += b.takes(&b.workers[i])
	}
	window := b.window - b.leased - b.nHeld
	more := min(places-b.reserved, window-b.reserved, b.queue-b.slotted) - b.open
	if more <= 0 {
		return fx
	}
	b.open += more
	return withEffect(fx, pace.Out(pace.Room{N: more}))
}
