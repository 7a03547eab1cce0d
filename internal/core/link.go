package core

import (
	"context"
	"sync/atomic"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/cell"
)

// Link returns a followed by b: the values a's last agent emits are the
// items b's first agent takes, as much as b's input bound allows, and a's
// completion closes b. When a's last agent keeps a pace and b's first
// reserves passes, b's work starts at a's pace: a's last agent has no
// demand but the room b's first opens for the items it can start as they
// come, grants the passes b's first reserves, and finishes only after b's
// first has ended.
func Link[I, M, O any](a Stage[I, M], b Stage[M, O]) Stage[I, O] {
	if a.start == nil || b.start == nil {
		return Stage[I, O]{}
	}
	paced := a.paces && b.reserves
	start := func(rt *agent.Runtime, in Inlet, out Outlet[O]) (Run[I], error) {
		// b starts first, so it is there when a's last agent passes it
		// values; it gives its input slots back as demand for that agent,
		// and reserves passes of it, which exists before any value flows.
		var before atomic.Pointer[puller]
		// The demand comes from b's first agent, on its goroutine, with
		// its relay; the values from a's last, with its.
		var head *Member[M]
		bin := Inlet{Demand: func(n int) { (*before.Load()).pullVia(n, head.relayOf()) }, DeadLetters: in.DeadLetters, Record: in.Record.past(a.Plan)}
		if paced {
			bin.Reserve = func(n int) {
				if !(*before.Load()).reserve(n, false) {
					head.pass(n) // the pacer has ended: its pace with it
				}
			}
			// b's input slots count only for its own metrics; the pacer's
			// demand is the room b opens (see package pace).
			bin.Demand = func(int) {}
			bin.Room = func(n int) { (*before.Load()).pullVia(n, head.relayOf()) }
		}
		rb, err := b.start(rt, bin, out)
		if err != nil {
			return Run[I]{}, err
		}
		head = rb.Head
		var from atomic.Pointer[cell.Relay]
		feed := func(values []M) (int, error) {
			head.feed(values, from.Load())
			return 0, nil
		}
		aout := Outlet[M]{Pull: b.first, Deliver: feed, Ended: head.Close, Gather: true, Hand: head.h.Hand()}
		if paced {
			aout.Paced, aout.Grant = true, head.pass
		}
		ra, err := a.start(rt, in, aout)
		if err != nil {
			StopAll(context.Background(), rb.Members)
			return Run[I]{}, err
		}
		last := ra.last
		from.Store(last.relayOf())
		before.Store(&last)
		if paced {
			head.WhenDone(func() { last.reserve(0, true) })
			// Now that b's first can reach the pacer, it may open room there.
			head.paced()
		}
		return Run[I]{Head: ra.Head, Members: append(ra.Members, rb.Members...), last: rb.last}, nil
	}
	return Stage[I, O]{name: a.name, first: a.first, bound: a.bound + b.bound, paces: b.paces, reserves: a.reserves, start: start,
		plan: func() Plan { return linked(a.Plan(), b.Plan()) }}
}
