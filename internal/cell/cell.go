package cell

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/pace"
	"github.com/evolvekit/evolve/internal/spec"
	"github.com/evolvekit/evolve/internal/trace"
)

// cell is the actor that runs one agent: it takes in its inbox, calls
// evolve on each message, keeps the state and performs the effects. Its
// fields are touched only from Receive, on the actor's goroutine, except
// crew.results, which the inbox's mutex guards.
type cell[S, I, W, R, O, V any] struct {
	spec   spec.Spec[S, W, R, O]
	state  S
	h      *Agent[I, V]
	wire   Wiring[O]
	crew   crew[W, R]
	inline []agent.Done[R]  // the results of inline work done this round, for evolve before the round ends
	fx     []agent.Effect   // the effects slice of the last step, emptied, for the next (see spec.Step)
	round  bool             // a round is being taken in: inline work's results go to inline
	fresh  time.Time        // when not zero, a clock reading just taken, for the next takeIn's first round
	spare  []other          // the others slice the inbox takes next
	items  []I              // the items slice the inbox takes next
	outbox outbox[O]        // the values emitted this round, delivered at its end
	room   int              // the room opened for the pacer before it this round (see package pace)
	woke   []relayed        // the agents to take in after a wake's rounds (see relay)
	port   spec.Port        // where Send effects go, when spec.Open is set
	dead   int              // dead letters handed to a sink
	first  agent.DeadLetter // the first of them
	timers map[uint64]timer // pending timers by tag
	timerN uint64
	meters                       // what the agent's metrics count, when it has any
	fl     *trace.Follower[W, O] // follows its items in traces; nil untraced
	over   bool                  // finished or broken: nothing more is evolved, the actor stops
	final  bool                  // the final status was taken
	asked  bool                  // the actor was told to stop itself
	ended  bool                  // wire.Ended was called
}

// timer is one pending timer: seq tells its firing from that of a timer it
// replaced.
type timer struct {
	seq    uint64
	cancel func() bool
}

// fired is what an armed timer sends its cell; the cell turns it into a Tick
// if the timer is still the pending one for its tag.
type fired struct{ seq, tag uint64 }

// rounds is how many times a cell takes in its inbox in one actor message
// before it lets the mailbox run again (for protoactor's system messages)
// and sends itself a new wake.
const rounds = 16

// pause is how takeIn ended.
type pause int

const (
	// pauseIdle: the inbox is empty and its token let go; another
	// goroutine may take it in from now on.
	pauseIdle pause = iota
	// pauseMore: the rounds are used up and the token still taken.
	pauseMore
	// pauseOver: the agent is over; its actor must stop.
	pauseOver
)

// Receive implements actor.Actor. Once it has let go of the inbox's token,
// another goroutine may take the inbox in (see relay), so it touches the
// cell no more after that.
func (c *cell[S, I, W, R, O, V]) Receive(ctx actor.Context) {
	over := false
	switch ctx.Message().(type) {
	case wake:
		var p pause
		c.woke, p = c.takeIn(c.woke[:0])
		over = p == pauseOver
		if p == pauseMore {
			c.h.wake() // more may be waiting: let the mailbox run, then go on
		}
		// c.woke is the mailbox's own: relayed visits take other agents'
		// inboxes in, never this one's.
		c.woke = runRelayed(c.woke)
	case *actor.Started:
		now := c.h.rt.Clock.Now()
		c.now = now
		if c.wire.Pull > 0 {
			c.step(agent.Pull{At: now, N: c.wire.Pull})
		}
		if c.wire.Paced {
			c.step(agent.Event[pace.Reservation]{At: now})
		}
		c.flush()
		over = c.over
		c.h.started.Store(true)
	case *actor.Stopping:
		c.disarmAll()
	case *actor.Stopped:
		var v V
		ok := false
		if !c.final {
			v, ok = c.finalStatus()
		}
		if c.port.Close != nil {
			c.port.Close()
		}
		if c.wire.Tape != nil {
			c.wire.Tape.Close()
		}
		// Its last counts published, and its gauges observed no more,
		// before anyone waiting for the agent hears it is gone.
		if c.h.gauges != nil {
			c.publish(c.h.rt.Clock.Now())
		}
		c.h.unmeter()
		c.fl.Close()
		c.h.actorStopped(v, ok)
		c.release()
		return
	}
	if over && !c.asked {
		c.asked = true
		ctx.Stop(ctx.Self())
	}
}

// takeIn hands evolve everything that gathered in the inbox: the demand
// granted as one Pull, each work result as a Done, then the items and the
// other messages in the order they came, the items between two other
// messages as one Input. All are stamped with one instant. It goes on until
// the inbox is empty, or for a bounded number of rounds. The caller holds
// the inbox's token; takeIn lets it go when the inbox is found empty. It
// appends to woke the idle neighbours its rounds woke (see relay), and says
// how it ended.
func (c *cell[S, I, W, R, O, V]) takeIn(woke []relayed) ([]relayed, pause) {
	in := &c.h.in
	c.h.relay.on = true
	fresh := c.fresh // for the first round only
	c.fresh = time.Time{}
	for range rounds {
		in.mu.Lock()
		if in.stopped {
			// Stopped by Halt, or ended: the actor stops itself.
			woke = c.h.relay.handOver(woke)
			c.over = true
			in.scheduled = false
			in.mu.Unlock()
			return woke, pauseOver
		}
		if in.empty() {
			woke = c.h.relay.handOver(woke)
			in.scheduled = false
			in.mu.Unlock()
			return woke, pauseIdle
		}
		items, pull, others, results := in.items, in.pull, in.others, c.crew.results
		in.items, in.pull, in.others, in.more = c.items, 0, c.spare, false
		in.size = len(items)
		c.crew.results = c.crew.spare
		in.mu.Unlock()

		now := c.instant(fresh)
		fresh = time.Time{}
		c.now, c.round = now, true
		if pull > 0 {
			c.step(agent.Pull{At: now, N: pull})
		}
		for i := range results {
			results[i].At = now
		}
		c.stepDones(results)
		// Items and other messages keep the order they came in: the items
		// between two other messages make one Input.
		next := 0
		for _, o := range others {
			if o.after > next {
				c.arrived(now, o.after-next)
				c.step(agent.Input[I]{At: now, Items: items[next:o.after:o.after]})
				next = o.after
			}
			c.receive(o.m, now)
		}
		if next < len(items) {
			c.arrived(now, len(items)-next)
			c.step(agent.Input[I]{At: now, Items: items[next:]})
		}
		c.stepInline(now)
		c.round = false
		c.flush() // before the items are reused: an agent may emit them as they came
		c.recycle(results)
		c.recycle(c.inline)
		clear(c.inline)
		c.inline = c.inline[:0]
		clear(others)
		clear(results)
		clear(items)
		c.spare, c.crew.spare, c.items = others[:0], results[:0], items[:0]
		c.publishSoon(now)
		if c.over {
			return c.h.relay.handOver(woke), pauseOver
		}
	}
	return c.h.relay.handOver(woke), pauseMore
}

// instant returns the instant of a round: fresh, a clock reading taken
// just before the round (by the worker that takes it in, as its work
// ended), unless it is zero or before the last round's, else a new one.
func (c *cell[S, I, W, R, O, V]) instant(fresh time.Time) time.Time {
	if fresh.IsZero() || fresh.Before(c.now) {
		return c.h.rt.Clock.Now()
	}
	return fresh
}

// stepInline hands evolve, at instant now, the Done of each inline work
// that the round's messages started, and of each that those Dones start in
// turn: a round takes in the results of its own inline work, rather than
// leave them to a round of their own.
func (c *cell[S, I, W, R, O, V]) stepInline(now time.Time) {
	for i := 0; i < len(c.inline); i++ {
		// A step may append to c.inline: d points into the array as it
		// was, which holds the Done still.
		d := &c.inline[i]
		d.At = now
		c.stepDone(d)
	}
}

// recycle hands the results of the round's Dones back to the spec's
// Recycle, if it has one and the agent does not record its steps, and
// keeps what it returns for the next Starts, up to keptSpares.
func (c *cell[S, I, W, R, O, V]) recycle(results []agent.Done[R]) {
	if c.spec.Recycle == nil || c.wire.Tape != nil {
		return
	}
	for _, d := range results {
		spare := c.spec.Recycle(d.Result)
		if len(c.crew.spares) < keptSpares {
			c.crew.spares = append(c.crew.spares, spare)
		}
	}
}

// receive hands evolve one of the inbox's other messages.
func (c *cell[S, I, W, R, O, V]) receive(o any, now time.Time) {
	switch m := o.(type) {
	case agent.Msg:
		c.step(agent.Stamp(m, now))
	case fired:
		if t, ok := c.timers[m.tag]; ok && t.seq == m.seq {
			delete(c.timers, m.tag)
			c.step(agent.Tick{At: now, Tag: m.tag})
		}
	case republish:
		c.republish = nil // the round's end publishes, or arms it again
	}
}
