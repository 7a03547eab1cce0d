package agent

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/asynkron/protoactor-go/actor"
)

// cell is the actor that runs one agent: it stamps each message, calls
// evolve, keeps the state and performs the effects. Its fields are touched
// only from Receive, on the actor's goroutine.
type cell[S, I, W, R, O, V any] struct {
	spec   Spec[S, I, W, R, O, V]
	state  S
	h      *Handle[I, V]
	ports  ports[O]
	timers map[uint64]timer // pending timers by tag
	timerN uint64
	broken bool
	ended  bool
}

// timer is one pending timer: seq tells its firing from that of a timer it
// replaced.
type timer struct {
	seq    uint64
	cancel func() bool
}

// fired is what an armed timer sends its cell; the cell turns it into a Tick
// if the timer is still the pending one for its tag.
type fired struct {
	seq, tag uint64
}

// Receive implements actor.Actor.
func (c *cell[S, I, W, R, O, V]) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case Msg:
		c.step(m)
	case fired:
		if t, ok := c.timers[m.tag]; ok && t.seq == m.seq {
			delete(c.timers, m.tag)
			c.step(Tick{Tag: m.tag})
		}
	case *actor.Started:
		c.step(Pull{N: c.ports.pull})
	case *actor.Stopping:
		for _, t := range c.timers {
			t.cancel()
		}
		clear(c.timers)
	}
}

// step runs evolve on one message and performs its effects. A panic in
// evolve or in the runtime breaks the agent: it is logged with its stack and
// becomes the agent's error.
func (c *cell[S, I, W, R, O, V]) step(m Msg) {
	if c.broken {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			c.fail(&PanicError{Value: p, Stack: debug.Stack()})
		}
	}()
	var effects []Effect
	c.state, effects = c.spec.Evolve(c.state, m.stamp(c.h.rt.clock.Now()))
	for _, e := range effects {
		c.perform(e)
	}
}

func (c *cell[S, I, W, R, O, V]) perform(e Effect) {
	switch e := e.(type) {
	case Emit[O]:
		c.emit(e.Values)
	case Start[W]:
		c.start(e)
	case Demand:
		c.ports.demand(e.N)
	case Timer:
		c.arm(e)
	case Disarm:
		c.disarm(e.Tag)
	case Reply[V]:
		c.h.answer(e.To, e.Value)
	case Finish:
		c.h.finish(e.Err)
		c.end()
	default:
		c.fail(fmt.Errorf("agent %s: effect %T does not match this agent's types", c.spec.Name, e))
	}
}

// emit hands values to the agent's outlet. Values it refuses leave the
// demand they took with the agent, as a Pull; a panic in it is logged and
// becomes the agent's error.
func (c *cell[S, I, W, R, O, V]) emit(values []O) {
	if len(values) == 0 {
		return
	}
	refused, err := c.ports.deliver(values)
	if err != nil {
		ev := c.h.log.Error().Err(err)
		var pe *PanicError
		if errors.As(err, &pe) {
			ev = ev.Bytes("stack", pe.Stack)
		}
		ev.Msg("sink panicked")
		c.h.sinkFailed(err)
	}
	if refused > 0 {
		c.h.deliver(Pull{N: refused})
	}
}

// end passes the agent's completion on to whatever follows it, once.
func (c *cell[S, I, W, R, O, V]) end() {
	if c.ports.ended != nil && !c.ended {
		c.ended = true
		c.ports.ended()
	}
}

func (c *cell[S, I, W, R, O, V]) start(s Start[W]) {
	if c.spec.Run == nil {
		c.fail(fmt.Errorf("agent %s: evolve asked to start work, but the agent has none", c.spec.Name))
		return
	}
	h, run := c.h, c.spec.Run
	h.working()
	go func() {
		defer h.worked()
		r, err := safely(h.workCtx, run, s.Work)
		h.deliver(Done[R]{ID: s.ID, Result: r, Err: err})
	}()
}

func (c *cell[S, I, W, R, O, V]) arm(t Timer) {
	c.disarm(t.Tag)
	c.timerN++
	f := fired{seq: c.timerN, tag: t.Tag}
	h := c.h
	c.timers[t.Tag] = timer{seq: f.seq, cancel: h.rt.clock.AfterFunc(t.Delay, func() { h.deliver(f) })}
}

func (c *cell[S, I, W, R, O, V]) disarm(tag uint64) {
	if t, ok := c.timers[tag]; ok {
		t.cancel()
		delete(c.timers, tag)
	}
}

func (c *cell[S, I, W, R, O, V]) fail(err error) {
	c.broken = true
	ev := c.h.log.Error().Err(err)
	if pe, ok := err.(*PanicError); ok {
		ev = ev.Bytes("stack", pe.Stack)
	}
	ev.Msg("agent failed")
	c.h.breakDown(err)
	if c.ports.upstream {
		// So that the agents before it can still drain, a broken agent in
		// a chain takes whatever it is sent and drops it.
		c.ports.demand(Unbounded)
	}
	c.end()
}
