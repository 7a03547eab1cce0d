package agent

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// cell is the actor that runs one agent: it takes in its inbox, calls
// evolve on each message, keeps the state and performs the effects. Its
// fields are touched only from Receive, on the actor's goroutine, except
// crew.results, which the inbox's mutex guards.
type cell[S, I, W, R, O, V any] struct {
	spec   Spec[S, I, W, R, O, V]
	state  S
	h      *Handle[I, V]
	ports  ports[O]
	crew   crew[W, R]
	handed int              // Starts handed to workers since the cell last yielded
	spare  []other          // the others slice the inbox takes next
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

// rounds is how many times a cell takes in its inbox in one actor message
// before it lets the mailbox run again (a Stop, say) and sends itself a new
// wake.
const rounds = 16

// Receive implements actor.Actor.
func (c *cell[S, I, W, R, O, V]) Receive(ctx actor.Context) {
	switch ctx.Message().(type) {
	case wake:
		c.takeIn()
	case *actor.Started:
		c.step(Pull{At: c.h.rt.clock.Now(), N: c.ports.pull})
	case *actor.Stopping:
		c.dismiss()
		for _, t := range c.timers {
			t.cancel()
		}
		clear(c.timers)
	}
}

// takeIn hands evolve everything that gathered in the inbox: the demand
// granted as one Pull, each work result as a Done, then the items and the
// other messages in the order they came, the items between two other
// messages as one Input. All are stamped with one instant. It goes on until the inbox is empty, or for a bounded number of
// rounds.
func (c *cell[S, I, W, R, O, V]) takeIn() {
	in := &c.h.in
	yielded := false
	for range rounds {
		in.mu.Lock()
		if in.empty() {
			if c.handed > 0 && !yielded {
				// Work was just handed out: let the workers run before
				// going idle, so their results come in one round.
				in.mu.Unlock()
				c.handed, yielded = 0, true
				runtime.Gosched()
				continue
			}
			in.scheduled = false
			in.mu.Unlock()
			return
		}
		items, pull, others, results := in.items, in.pull, in.others, c.crew.results
		in.items, in.pull, in.others, in.more = nil, 0, c.spare, false
		in.size = len(items)
		c.crew.results = c.crew.spare
		in.mu.Unlock()

		now := c.h.rt.clock.Now()
		if pull > 0 {
			c.step(Pull{At: now, N: pull})
		}
		for _, d := range results {
			d.At = now
			c.step(d)
		}
		// Items and other messages keep the order they came in: the items
		// between two other messages make one Input.
		next := 0
		for _, o := range others {
			if o.after > next {
				c.step(Input[I]{At: now, Items: items[next:o.after:o.after]})
				next = o.after
			}
			c.receive(o.m, now)
		}
		if next < len(items) {
			c.step(Input[I]{At: now, Items: items[next:]})
		}
		clear(others)
		clear(results)
		c.spare, c.crew.spare = others[:0], results[:0]
	}
	// More may be waiting: let the mailbox run (a Stop, say), then go on.
	if !c.h.isStopped() {
		c.h.wake()
	}
}

// receive hands evolve one of the inbox's other messages.
func (c *cell[S, I, W, R, O, V]) receive(o any, now time.Time) {
	switch m := o.(type) {
	case Msg:
		c.step(m.stamp(now))
	case fired:
		if t, ok := c.timers[m.tag]; ok && t.seq == m.seq {
			delete(c.timers, m.tag)
			c.step(Tick{At: now, Tag: m.tag})
		}
	}
}

// step runs evolve on one stamped message and performs its effects. A panic
// in evolve or in the runtime breaks the agent: it is logged with its stack
// and becomes the agent's error.
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
	c.state, effects = c.spec.Evolve(c.state, m)
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
		c.dismiss()
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
		c.h.pull(refused)
	}
}

// end passes the agent's completion on to whatever follows it, once.
func (c *cell[S, I, W, R, O, V]) end() {
	if c.ports.ended != nil && !c.ended {
		c.ended = true
		c.ports.ended()
	}
}

// start hands the work to an idle worker of the agent, or to a new one if
// all are busy.
func (c *cell[S, I, W, R, O, V]) start(s Start[W]) {
	if c.spec.Run == nil {
		c.fail(fmt.Errorf("agent %s: evolve asked to start work, but the agent has none", c.spec.Name))
		return
	}
	c.handed++
	if !c.crew.closed {
		select {
		case c.crew.jobs <- s:
			return
		default:
		}
	}
	c.h.working()
	go c.work(s)
}

func (c *cell[S, I, W, R, O, V]) arm(t Timer) {
	c.disarm(t.Tag)
	c.timerN++
	f := fired{seq: c.timerN, tag: t.Tag}
	h := c.h
	c.timers[t.Tag] = timer{seq: f.seq, cancel: h.rt.clock.AfterFunc(t.Delay, func() { h.post(f) })}
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
	c.dismiss()
	if c.ports.upstream {
		// So that the agents before it can still drain, a broken agent in
		// a chain takes whatever it is sent and drops it.
		c.ports.demand(Unbounded)
	}
	c.end()
}
