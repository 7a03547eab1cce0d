package cell

import (
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/pace"
	"github.com/evolvekit/evolve/internal/safe"
	"github.com/evolvekit/evolve/internal/spec"
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
	meters      // what the agent's metrics count, when it has any
	over   bool // finished or broken: nothing more is evolved, the actor stops
	final  bool // the final status was taken
	asked  bool // the actor was told to stop itself
	ended  bool // wire.Ended was called
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

// step runs evolve on one stamped message and performs its effects. A panic
// in evolve or in the runtime breaks the agent: it is logged with its stack
// and becomes the agent's error.
func (c *cell[S, I, W, R, O, V]) step(m agent.Msg) { c.stepOn(m, nil, nil) }

// stepDone is step for the Done *d: handed to the spec's StepDone, when it
// has one and the agent records nothing, with no box made for it.
func (c *cell[S, I, W, R, O, V]) stepDone(d *agent.Done[R]) {
	if c.spec.StepDone == nil || c.wire.Tape != nil {
		c.step(*d)
		return
	}
	c.stepOn(nil, d, nil)
}

// stepDones is stepDone for each of ds, the results a round takes in, in
// turn: handed to the spec's StepDones all at once, when it has one, there
// are two or more and the agent records nothing.
func (c *cell[S, I, W, R, O, V]) stepDones(ds []agent.Done[R]) {
	if c.spec.StepDones == nil || c.wire.Tape != nil || len(ds) < 2 {
		for i := range ds {
			c.stepDone(&ds[i])
		}
		return
	}
	c.stepOn(nil, nil, ds)
}

// stepOn is step for m; for *d when d is not nil; for ds, when not nil.
func (c *cell[S, I, W, R, O, V]) stepOn(m agent.Msg, d *agent.Done[R], ds []agent.Done[R]) {
	if c.over {
		return
	}
	defer c.caught()
	if c.wire.Tape != nil {
		c.wire.Tape.Before(m)
	}
	// The slice of the step before, unless a step runs within this one.
	fx := c.fx
	c.fx = nil
	var effects []agent.Effect
	switch {
	case ds != nil:
		effects = c.spec.StepDones(&c.state, ds, fx[:0])
	case d != nil:
		effects = c.spec.StepDone(&c.state, d, fx[:0])
	default:
		effects = c.spec.Apply(&c.state, m, fx[:0])
	}
	if c.wire.Tape != nil {
		c.wire.Tape.After(effects)
	}
	for _, e := range effects {
		if c.over {
			return
		}
		c.perform(e, m)
	}
	clear(effects) // holds nothing the effects carried
	c.fx = effects[:0]
}

// caught, deferred by step, breaks the agent when its evolve or the
// runtime panicked.
func (c *cell[S, I, W, R, O, V]) caught() {
	if p := recover(); p != nil {
		c.fail(safe.Panic(p))
	}
}

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
	j := job[W, R]{s: s}
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

// finish ends the agent after its Finish: it takes the final status, lets
// the workers go, passes its completion on and tells the actor to stop. An
// agent whose failed items went to a dead-letter sink ends with an
// *agent.DeadLettersError saying how many.
func (c *cell[S, I, W, R, O, V]) finish(err error) {
	c.flush() // what it emitted first goes before its end, a sink's panic with it
	if c.dead > 0 {
		err = &agent.DeadLettersError{Agent: c.spec.Name, N: c.dead, First: c.first}
	}
	c.over, c.final = true, true
	final, ok := c.finalStatus()
	c.h.conclude(err, final, ok)
	c.disarmAll()
	c.end()
}

// fail breaks the agent: its evolve panicked or broke the contract. It is
// logged, becomes the agent's error, and the agent ends. So that the agents
// before it can still drain, a broken agent in a chain takes whatever it is
// sent and drops it.
func (c *cell[S, I, W, R, O, V]) fail(err error) {
	if c.over {
		return
	}
	c.flush()
	c.over = true
	ev := c.h.log.Error().Err(err)
	if pe, ok := err.(*agent.PanicError); ok {
		ev = ev.Bytes("stack", pe.Stack)
	}
	ev.Msg("agent failed")
	var zero V
	c.h.conclude(err, zero, false)
	c.disarmAll()
	if c.wire.upstream {
		c.wire.Demand(agent.Unbounded)
	}
	if c.wire.Room != nil {
		c.wire.Room(agent.Unbounded) // a pacer before it takes its demand from here
	}
	c.end()
}

// end passes the agent's completion on to whatever follows it, once.
func (c *cell[S, I, W, R, O, V]) end() {
	c.flush()
	if c.wire.Ended != nil && !c.ended {
		c.ended = true
		c.wire.Ended()
	}
}

// finalStatus takes the status the agent ends with, as statusAt does, and
// records it if the agent records.
func (c *cell[S, I, W, R, O, V]) finalStatus() (V, bool) {
	now := c.h.rt.Clock.Now()
	v, ok := c.statusAt(now)
	if c.wire.Tape != nil {
		c.wire.Tape.Final(now, v, ok)
	}
	return v, ok
}

// statusAt asks evolve for the agent's status at instant now.
func (c *cell[S, I, W, R, O, V]) statusAt(now time.Time) (v V, ok bool) {
	_ = safe.Do(func() {
		_, fx := c.spec.Evolve(c.state, agent.Query{At: now})
		for _, e := range fx {
			if r, is := e.(agent.Reply[V]); is {
				v, ok = r.Value, true
			}
		}
	})
	return v, ok
}

// release lets go of the state and of everything the cell held, once the
// actor is gone.
func (c *cell[S, I, W, R, O, V]) release() {
	var zero S
	c.state = zero
	c.crew.spare, c.spare, c.timers, c.port, c.first = nil, nil, nil, spec.Port{}, agent.DeadLetter{}
	c.items, c.outbox, c.woke, c.inline = nil, outbox[O]{}, nil, nil
	c.waits = nil
	c.h.unmeter()
	c.h.in.mu.Lock()
	c.crew.results = nil
	c.h.in.mu.Unlock()
}
