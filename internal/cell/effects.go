package cell

import (
	"errors"
	"fmt"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/fair"
	"github.com/evolvekit/evolve/internal/pace"
	"github.com/evolvekit/evolve/internal/safe"
)

// perform carries out one effect of the message m.
func (c *cell[S, I, W, R, O, V]) perform(e agent.Effect, m agent.Msg) {
	switch e := e.(type) {
	case agent.Emit[O]:
		c.emit(e.Values)
	case agent.Start[W]:
		c.start(e)
	case agent.Demand:
		c.left(e.N, c.now)
		c.wire.Demand(e.N)
	case agent.Send[fair.Freed]:
		if !c.wire.upstream {
			c.h.release(e.Value.Runs)
		}
	case agent.Timer:
		c.arm(e)
	case agent.Disarm:
		c.disarm(e.Tag)
	case agent.Reply[V]:
		c.publish(c.h.rt.Clock.Now()) // so that what a Status call saw is published by the time it returns
		c.h.answer(e.To, e.Value)
	case agent.Cancel:
		c.h.cancel(e.Cause)
	case agent.DeadLetter:
		c.deadLetter(e)
	case agent.Finish:
		c.finish(e.Err)
	case agent.Send[pace.Reserve]:
		c.reserve(e.Value.N)
	case agent.Send[pace.Room]:
		if c.wire.Room != nil && e.Value.N > 0 {
			c.room = min(c.room+e.Value.N, agent.Unbounded) // handed over once a round, by flush
		}
	case agent.Send[pace.Grant]:
		if c.wire.Grant != nil && e.Value.N > 0 {
			c.wire.Grant(e.Value.N)
		}
	case agent.Send[pace.Drained]:
		c.end()
	case agent.Unhandled:
		if m == nil { // a Done handed over unboxed
			m = agent.Done[R]{}
		}
		c.fail(fmt.Errorf("agent %s: evolve did not handle %T", c.spec.Name, m))
	default:
		if c.port.Send != nil && c.port.Send(e) {
			return
		}
		c.fail(fmt.Errorf("agent %s: effect %T does not match this agent's types", c.spec.Name, e))
	}
}

// emit hands values to the agent's outlet: at once, or, for an agent that
// feeds the next agent of a chain, gathered with all that the round emits
// and handed over at its end (see flush).
func (c *cell[S, I, W, R, O, V]) emit(values []O) {
	c.fl.Emit(values)
	c.outbox.add(values)
	if !c.wire.Gather {
		c.flush()
	}
}

// flush hands the room the round opened to the pacer before the agent, as
// its demand, then the values gathered to the agent's outlet, in order, at
// the end of a round or before the agent's completion is passed on. Values it
// refuses leave the demand they took with the agent, as a Pull; a panic in
// it is logged and becomes the agent's error.
func (c *cell[S, I, W, R, O, V]) flush() {
	if c.room > 0 {
		c.wire.Room(c.room)
		c.room = 0
	}
	values := c.outbox.take()
	if len(values) == 0 {
		return
	}
	c.fl.Pass(c.wire.Hand)
	defer c.outbox.done(values)
	refused, err := c.wire.Deliver(values)
	c.out += int64(len(values) - refused)
	if err != nil {
		ev := c.h.log.Error().Err(err)
		var pe *agent.PanicError
		if errors.As(err, &pe) {
			ev = ev.Bytes("stack", pe.Stack)
		}
		ev.Msg("sink panicked")
		c.h.sinkFailed(err)
	}
	if refused > 0 {
		c.h.pull(refused)
	}
}

// reserve hands a reservation of n passes to the pacer before the agent,
// or grants them at once when there is none.
func (c *cell[S, I, W, R, O, V]) reserve(n int) {
	switch {
	case n < 1:
	case c.wire.Reserve != nil:
		c.wire.Reserve(n)
	default:
		c.h.post(pace.In(pace.Pass{N: n}))
	}
}

// start hands the work to an idle worker of the agent, or to a new one if
// all are busy. Once the agent has halted, no new worker starts.
func (c *cell[S, I, W, R, O, V]) start(s agent.Start[W]) {
	if c.spec.Work == nil {
		c.fail(fmt.Errorf("agent %s: evolve asked to start work, but the agent has none", c.spec.Name))
		return
	}
	if c.spec.Inline {
		c.runInline(s)
		return
	}
	// The line is closed as the agent halts, under the handle's mu: the
	// Start is handed over under it too, so never to a closed line.
	h := c.h
	h.mu.Lock()
	if h.halted {
		h.mu.Unlock()
		return
	}
	j := job[W, R]{s: s, ctx: c.fl.Start(h.workCtx, s.ID, s.Work)}
	if n := len(c.crew.spares); n > 0 {
		var zero R
		j.spare, c.crew.spares[n-1] = c.crew.spares[n-1], zero
		c.crew.spares = c.crew.spares[:n-1]
	}
	select {
	case c.crew.jobs <- j:
		h.mu.Unlock()
		return
	default:
	}
	ok := h.startWorker()
	h.mu.Unlock()
	if ok {
		if c.crew.started++; c.crew.started > fewWorkers {
			c.crew.many.Store(true)
		}
		go c.work(c.kit(), h, j)
	}
}

func (c *cell[S, I, W, R, O, V]) arm(t agent.Timer) {
	c.disarm(t.Tag)
	c.timerN++
	f := fired{seq: c.timerN, tag: t.Tag}
	h := c.h
	c.timers[t.Tag] = timer{seq: f.seq, cancel: h.rt.Clock.AfterFunc(t.Delay, func() { h.post(f) })}
}

func (c *cell[S, I, W, R, O, V]) disarm(tag uint64) {
	if t, ok := c.timers[tag]; ok {
		t.cancel()
		delete(c.timers, tag)
	}
}

// disarmAll cancels every pending timer, the metrics' too.
func (c *cell[S, I, W, R, O, V]) disarmAll() {
	for _, t := range c.timers {
		t.cancel()
	}
	clear(c.timers)
	c.unarm()
}

// deadLetter hands d to the dead-letter sink, if there is one, and counts
// it; a panic in the sink is logged and becomes the agent's error.
func (c *cell[S, I, W, R, O, V]) deadLetter(d agent.DeadLetter) {
	c.fl.Dead(d.Seq, d.Err, d.Attempts)
	if c.wire.Dead == nil {
		return
	}
	d.Agent = c.spec.Name
	if c.dead == 0 {
		c.first = d
	}
	c.dead++
	if err := safe.Do(func() { c.wire.Dead(d) }); err != nil {
		c.h.log.Error().Err(err).Msg("dead-letter sink panicked")
		c.h.sinkFailed(err)
	}
}
