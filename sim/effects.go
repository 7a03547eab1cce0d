package sim

import (
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/fair"
	"github.com/evolvekit/evolve/internal/pace"
)

// perform carries out one effect agent i asked for in answer to m.
func (r *runner) perform(i int, e agent.Effect, m agent.Msg) {
	a := &r.agents[i]
	switch e := e.(type) {
	case agent.Demand:
		r.giveBack(i, e.N)
	case agent.Timer:
		a.gen++
		a.timers[e.Tag] = a.gen
		r.schedule(r.now+max(e.Delay, 0), event{kind: evTick, agent: i, n: e.Tag, gen: a.gen})
	case agent.Disarm:
		delete(a.timers, e.Tag)
	case agent.Send[pace.Reserve]:
		r.reserve(i, e.Value.N)
	case agent.Send[pace.Room]:
		r.room(i, e.Value.N)
	case agent.Send[pace.Grant]:
		if a.paces && e.Value.N > 0 {
			a.st.Granted += int64(e.Value.N)
			r.send(i+1, evPass, uint64(e.Value.N))
		}
	case agent.Send[pace.Drained]:
		r.end(i)
	case agent.Send[fair.Freed]:
		// The keys of the slots that come back: the feeder bounds no key.
	case agent.Finish:
		r.finish(i, e.Err)
	case agent.Cancel:
		// Simulated work has no context to cancel: it takes its time.
	case agent.DeadLetter:
		a.st.DeadLetters++
	case agent.Unhandled:
		r.violate(i, "did not handle %T", m)
	default:
		if n, ok := a.m.Emitted(e); ok {
			r.emit(i, e, n)
		} else if id, ok := a.m.Start(r.ctx, e); ok {
			r.start(i, id)
		} else if !isReply(e) {
			r.violate(i, "asked for an effect it cannot ask for: %T", e)
		}
	}
}

// giveBack takes n input slots agent i gives back: demand for the agent
// before it, unless that one is a pacer (whose demand is the room agent i
// opens), or room for the feeder.
func (r *runner) giveBack(i, n int) {
	a := &r.agents[i]
	if n < 0 || n > a.held {
		r.violate(i, "gave back %d input slots, holding %d items", n, a.held)
		return
	}
	a.held -= n
	if i > 0 && n > 0 && !r.agents[i-1].paces {
		r.send(i-1, evPull, uint64(n))
	}
}

// reserve hands a reservation of n passes to the pacer before agent i, or
// grants them at once when there is none, or it has ended.
func (r *runner) reserve(i, n int) {
	if n < 1 {
		return
	}
	r.agents[i].st.Reserved += int64(n)
	if i > 0 && r.agents[i-1].paces && !r.agents[i-1].over {
		r.send(i-1, evReserve, uint64(n))
		return
	}
	r.send(i, evPass, uint64(n))
}

// room hands the room for n items agent i opened to the pacer before it,
// as demand. The agent must not open more than its queue's bound holds,
// with the items handed to it and those the pacer may still send.
func (r *runner) room(i, n int) {
	if n < 1 || i == 0 || !r.agents[i-1].paces {
		return
	}
	a, p := &r.agents[i], &r.agents[i-1]
	if a.held+p.demand+n > a.Queue {
		r.violate(i, "opened room for %d items, holding %d and %d on the way of %d", n, a.held, p.demand, a.Queue)
		return
	}
	r.send(i-1, evPull, uint64(n))
}

// emit passes the batch of n values agent i emitted (see core.Convert)
// through its conversions to the next agent, or to the sink. Values a
// conversion drops give their demand back to agent i.
func (r *runner) emit(i int, values any, n int) {
	a := &r.agents[i]
	if n == 0 {
		return
	}
	if n > a.demand {
		r.violate(i, "emitted %d values holding demand for %d", n, a.demand)
		return
	}
	a.demand -= n
	a.st.Emitted += int64(n)
	back := 0
	for _, c := range a.out {
		if n == 0 {
			break
		}
		kept, dropped, err := c.Apply(values)
		values, n, back = kept, n-dropped, back+dropped
		switch {
		case c.Refuses:
			r.refuse(i+1, dropped, err)
		default:
			a.st.Declined += int64(dropped)
			if a.sinkErr == nil {
				a.sinkErr = err
			}
		}
	}
	if back > 0 {
		r.send(i, evPull, uint64(back))
	}
	switch {
	case n == 0:
	case i == len(r.agents)-1:
		r.res.Emitted += int64(n)
		r.sink(r.now, values)
	default:
		r.schedule(r.now, event{kind: evInput, agent: i + 1, n: uint64(n), batch: values})
	}
}

// refuse counts the n items the MapIn functions of agent i refused, the
// first for reason err.
func (r *runner) refuse(i, n int, err error) {
	if n == 0 {
		return
	}
	a := &r.agents[i]
	a.st.Refused += int64(n)
	if a.refusal == nil {
		a.refusal = err
	}
}

// start runs a piece of agent i's work: its Done comes after the service
// time the agent's capacity gives at the concurrency of its work in flight,
// or, under a Sharing, once its share of the capacity has got through it.
func (r *runner) start(i int, id uint64) {
	a := &r.agents[i]
	if _, ok := a.running[id]; ok {
		r.violate(i, "started work %d while it was in flight", id)
		return
	}
	a.running[id] = r.now
	a.st.Started++
	if a.shared != nil {
		a.shared.start(a.service, r.now, id)
		r.rewake(i)
		return
	}
	var d time.Duration
	if a.capa != nil {
		d = max(a.capa.Service(a.service, r.now, len(a.running)), 0)
	}
	r.schedule(r.now+d, event{kind: evDone, agent: i, n: id})
}

// end closes the agent after agent i, once: it has finished, or said
// that it drained (package internal/pace).
func (r *runner) end(i int) {
	a := &r.agents[i]
	if a.ended || i == len(r.agents)-1 {
		return
	}
	a.ended = true
	r.send(i+1, evClose, 0)
}

// finish ends agent i with err: it takes its final status, closes the
// agent after it and tells a pacer before it that it has ended.
func (r *runner) finish(i int, err error) {
	a := &r.agents[i]
	a.over, a.st.Finished, a.failed = true, true, err
	a.st.Status, _ = a.m.Status(r.at())
	clear(a.timers)
	r.left--
	r.end(i)
	if i > 0 && r.agents[i-1].paces {
		r.send(i-1, evLast, 0)
	}
}
