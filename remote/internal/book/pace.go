package book

import (
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/pace"
)

// Pace: behind a pacer, the book keeps the count of package pacing, whose
// doc says how every task then goes in the step of the message that
// brought its token. A worker is handed only the tasks it asked for beyond
// its prefetch (takes); the items queued that a worker could take now
// have passes reserved (reserve); and the room the workers could fill is
// opened to the pacer (openRoom).

// follow makes the book, at instant at, keep the pace of the pacer before
// it, and asks its actor, with a Prefetch, to grant no prefetch to the
// workers that register.
func (b *Book[I, O, R]) follow(at time.Time) []agent.Effect {
	b.pacer.Follow()
	b.prefetch = 0
	fx := []agent.Effect{agent.Send[Prefetch]{Value: Prefetch{N: 0}}}
	return append(fx, b.settle(at)...)
}

// reserve drops the tokens the message brought that dispatch did not use,
// and asks for the passes that the queued items a worker could take now
// need beyond those reserved.
func (b *Book[I, O, R]) reserve(fx []agent.Effect) []agent.Effect {
	if need := b.pacer.Reserve(len(b.plan(agent.Unbounded))); need > 0 {
		fx = withEffect(fx, pace.Out(pace.Reserve{N: need}))
	}
	return fx
}

// openRoom opens room for as many more items as the workers could take
// as they come, within the window, less the items leased and held, and
// the input bound, less the items queued that hold an input slot (see
// pacing.Pacer.Open). None once closed.
func (b *Book[I, O, R]) openRoom(fx []agent.Effect) []agent.Effect {
	if b.closed {
		return fx
	}
	places := 0
	for i := range b.workers {
		places += b.takes(&b.workers[i])
	}
	if more := b.pacer.Open(places, b.window-b.leased-b.nHeld, b.queue-b.slotted); more > 0 {
		fx = withEffect(fx, pace.Out(pace.Room{N: more}))
	}
	return fx
}
