package rate

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/pace"
)

// TestProperties drives Evolve through thousands of seeded random sequences
// the way the runtime would: a feeder that posts only while it holds input
// credits, a downstream that grants demand, Ticks delivered at the instants
// their timers asked for (interleaved with other messages at the same
// instant; or late, after other messages, in a quarter of the sequences),
// stale Ticks, queries, limit changes and Close, and in half the
// sequences an agent after it that reserves passes (see
// agent.Reservation) and at some point ends. After every message it checks
// the invariants; at the end of each sequence it drains the agent and
// checks that everything came out, in order, once, passes and items alike
// no faster than the bucket allows and no later than an exact model of it
// says. Nothing is delivered after Finish, as the runtime delivers nothing.
func TestProperties(t *testing.T) {
	const sequences, messages, shards = 2000, 200, 4
	var (
		mu    sync.Mutex
		total tally
	)
	t.Run("shards", func(t *testing.T) {
		for shard := range uint64(shards) {
			t.Run(fmt.Sprint(shard), func(t *testing.T) {
				t.Parallel()
				var n tally
				for seed := shard; seed < sequences; seed += shards {
					n.add(runSequence(t, seed, messages))
				}
				mu.Lock()
				total.add(n)
				mu.Unlock()
			})
		}
	})
	t.Logf("up to %d sequences x %d messages (+ drain): %d messages in all, %d ticks (%d stale), %d items, %d passes (%d steps with both); %d a nanosecond off the exact model",
		sequences, messages, total.messages, total.ticks, total.stale, total.items, total.passes, total.both, total.off)
	if total.off*1000 > total.items+total.passes {
		t.Errorf("%d of %d items and passes a nanosecond off the exact model: more than knife edges",
			total.off, total.items+total.passes)
	}
}

// runSequence plays the sequence of the given seed and checks it.
func runSequence(t *testing.T, seed uint64, messages int) tally {
	rnd := rand.New(rand.NewPCG(seed, 0x5eed))
	sm := newSim(t, seed, newScenario(rnd), rnd)
	for sm.n.messages < messages && sm.finish == 0 {
		sm.step()
	}
	sm.drain()
	sm.checkOutput()
	return sm.n
}

// scenario is one sequence's configuration.
type scenario struct {
	limit     Limit
	exact     *big.Rat // the rate limit.Rate stands for
	queue     int
	costs     bool          // items have random costs
	reshape   bool          // SetLimit messages happen; the rate is not fixed
	throttled bool          // demand comes in small Pulls instead of all at once
	paced     bool          // the agent after it may reserve passes
	late      bool          // Ticks come late, and other messages before them
	gap       time.Duration // mean gap between messages
}

func (sc scenario) String() string {
	return fmt.Sprintf("rate %s burst %d queue %d costs %v reshape %v throttled %v paced %v late %v gap %v",
		sc.exact.RatString(), sc.limit.Burst, sc.queue, sc.costs, sc.reshape, sc.throttled, sc.paced, sc.late, sc.gap)
}

func newScenario(rnd *rand.Rand) scenario {
	l, exact := randomExactLimit(rnd)
	sc := scenario{
		limit:     l,
		exact:     exact,
		queue:     1 + rnd.IntN(16),
		costs:     rnd.IntN(2) == 0,
		reshape:   rnd.IntN(4) == 0,
		throttled: rnd.IntN(3) == 0,
		paced:     rnd.IntN(2) == 0,
		late:      rnd.IntN(4) == 0,
	}
	perItem := time.Duration(float64(time.Second) / sc.limit.Rate)
	sc.gap = time.Duration(rnd.Float64() * 2 * float64(perItem))
	return sc
}

// randomLimit picks a rate, often a fractional one, and a burst.
func randomLimit(rnd *rand.Rand) Limit {
	l, _ := randomExactLimit(rnd)
	return l
}

// randomExactLimit is randomLimit, with the rate also as the exact number it
// stands for: the float64 nearest to 0.3 is not 0.3.
func randomExactLimit(rnd *rand.Rand) (Limit, *big.Rat) {
	written := []string{"3", "0.5", "10", "1/3", "0.3", "7", "1000/7", "2.5"}
	exact, _ := new(big.Rat).SetString(written[rnd.IntN(len(written))])
	if rnd.IntN(2) == 0 {
		exact.SetFloat64(math.Exp(rnd.Float64()*math.Log(1e4)) / 10) // 0.1/s to 1000/s
	}
	r, _ := exact.Float64()
	return Limit{Rate: r, Burst: 1 + rnd.IntN(8)}, exact
}

// tally counts what the sequences did.
type tally struct {
	messages, ticks, stale, items, passes, off int
	both                                       int // steps that granted passes and emitted items
}

func (a *tally) add(b tally) {
	a.messages += b.messages
	a.ticks += b.ticks
	a.stale += b.stale
	a.items += b.items
	a.passes += b.passes
	a.off += b.off
	a.both += b.both
}

// pending is a timer the runtime would have armed.
type pending struct {
	at  time.Time
	tag uint64
}

// grant is a Pull as it came: the demand granted in all, and when. It also
// stands for a Reservation as it came: the passes reserved in all, and when.
type grant struct {
	upto int
	at   time.Time
}

// granted returns when demand for the k-th item (from 0) arrived.
func (sm *sim) granted(k int) time.Time {
	return arrival(sm.grants, k)
}

// reservedAt returns when the k-th pass (from 0) was reserved.
func (sm *sim) reservedAt(k int) time.Time {
	return arrival(sm.reservations, k)
}

// arrival returns the instant of the grant that brought the k-th unit.
func arrival(gs []grant, k int) time.Time {
	i, _ := slices.BinarySearchFunc(gs, k+1, func(g grant, n int) int { return g.upto - n })
	return gs[i].at
}

// emission is one item as it came out.
type emission struct {
	value int
	at    time.Time
}

// unit is one thing the bucket let through, in the order it went: an item,
// or a pass (value -1) of cost 1. step is the message it went out on.
type unit struct {
	value int
	at    time.Time
	step  int
}

// sim plays the runtime, the feeder and downstream around one State.
type sim struct {
	t    *testing.T
	seed uint64
	sc   scenario
	rnd  *rand.Rand

	s       State[int]
	now     time.Time
	credits int       // input slots the feeder holds
	costs   []float64 // the price of each posted item, by value
	posted  []time.Time
	pulled  int     // demand granted in all
	grants  []grant // when demand arrived, in order
	out     []emission
	timers  []pending
	closed  bool
	finish  int
	n       tally

	// The passes of the agent after it: reserved in all and when, owed
	// now, granted so far, the bucket's output of items and passes in
	// order, and the Reservation with Last: come, the message it came on,
	// and whether it forgot passes owed.
	reservations []grant
	reserved     int
	owed         int
	passes       int
	units        []unit
	last         bool
	lastStep     int
	lastAt       time.Time
	forgot       bool
	drained      int
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newSim(t *testing.T, seed uint64, sc scenario, rnd *rand.Rand) *sim {
	s, err := NewState(Config[int]{Rate: sc.limit.Rate, Burst: sc.limit.Burst, Queue: sc.queue})
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	sm := &sim{t: t, seed: seed, sc: sc, rnd: rnd, s: s, now: t0, credits: sc.queue}
	if sc.throttled {
		sm.deliver(agent.Pull{N: 1 + rnd.IntN(4)})
	} else {
		sm.deliver(agent.Pull{N: agent.Unbounded})
	}
	if sc.paced {
		sm.deliver(pace.In(pace.Reservation{})) // as the runtime does, right after the first Pull
	}
	return sm
}

func (sm *sim) fail(format string, args ...any) {
	sm.t.Helper()
	sm.t.Fatalf("seed %d (%v) at +%v: "+format, append([]any{sm.seed, sm.sc, sm.now.Sub(t0)}, args...)...)
}

// step moves time on by a random gap, delivering the Ticks that fall due on
// the way at their own instants, then delivers one random message, unless
// a Tick finished the agent.
func (sm *sim) step() {
	next := sm.now.Add(sm.gapLength())
	first := sm.rnd.IntN(2) == 0 // a message at a Tick's instant may come first
	sm.ticksUntil(next, !first)
	if sm.finish > 0 {
		return
	}
	sm.now = next
	sm.deliver(sm.message())
	sm.ticksUntil(next, true)
}

func (sm *sim) gapLength() time.Duration {
	switch p := sm.rnd.IntN(10); {
	case p < 3:
		return 0
	case p == 9:
		return time.Duration(sm.rnd.Float64() * 10 * float64(sm.sc.gap)) // let the bucket fill
	}
	return time.Duration(sm.rnd.ExpFloat64() * float64(sm.sc.gap))
}

// ticksUntil delivers the pending Ticks due before until, in order, each at
// its own instant, and those due at until itself when inclusive is set.
// After Finish, none: the runtime has removed the agent.
func (sm *sim) ticksUntil(until time.Time, inclusive bool) {
	for len(sm.timers) > 0 && sm.finish == 0 {
		i := sm.earliest()
		p := sm.timers[i]
		if p.at.After(until) || (!inclusive && p.at.Equal(until)) {
			return
		}
		sm.timers = slices.Delete(sm.timers, i, i+1)
		sm.now = p.at
		sm.deliver(agent.Tick{Tag: p.tag})
	}
}

func (sm *sim) earliest() int {
	i := 0
	for j, p := range sm.timers {
		if p.at.Before(sm.timers[i].at) {
			i = j
		}
	}
	return i
}

// message picks the next message: mostly input while credits last and
// input has not ended.
func (sm *sim) message() agent.Msg {
	switch p := sm.rnd.IntN(100); {
	case p < 50 && sm.credits > 0 && !sm.closed:
		return sm.input()
	case p < 65 && sm.sc.throttled:
		return agent.Pull{N: 1 + sm.rnd.IntN(4)}
	case p < 72:
		return agent.Query{ID: uint64(p)}
	case p < 78 && sm.sc.reshape:
		return agent.Set[Limit]{Value: randomLimit(sm.rnd)}
	case p < 84:
		return agent.Tick{Tag: sm.staleTag()}
	case p < 86:
		return sm.unhandled()
	case p < 94 && sm.sc.paced:
		return pace.In(pace.Reservation{N: sm.rnd.IntN(5)}) // after Last too, which forgets them
	case p == 94 && sm.sc.paced && !sm.last && (sm.drained > 0 || sm.rnd.IntN(4) == 0):
		return pace.In(pace.Reservation{Last: true}) // mostly once drained, as the runtime sends it
	case p == 99 && !sm.closed && sm.rnd.IntN(3) == 0:
		return agent.Close{}
	}
	return agent.Query{ID: 1}
}

// unhandled picks a message of a type the agent does not take.
func (sm *sim) unhandled() agent.Msg {
	return []agent.Msg{
		agent.Done[int]{ID: 1},
		agent.Done[struct{}]{ID: 1},
		agent.Set[float64]{Value: 9},
		agent.Input[string]{Items: []string{"x"}},
		pace.In(pace.Pass{N: 1}),
	}[sm.rnd.IntN(5)]
}

// input posts 1 to 4 items, no more than the credits the feeder holds, with
// costs the Agent would accept; without costs, half the time as plain
// values, as a chain's stage with no Cost takes them.
func (sm *sim) input() agent.Msg {
	k := 1 + sm.rnd.IntN(min(sm.credits, 4))
	items := make([]Item[int], k)
	for i := range items {
		v := len(sm.costs)
		items[i] = Item[int]{Value: v, Cost: sm.cost()}
		sm.costs = append(sm.costs, items[i].price(sm.s.bucket.limit.Burst))
		sm.posted = append(sm.posted, sm.now)
	}
	sm.credits -= k
	if !sm.sc.costs && sm.rnd.IntN(2) == 0 {
		values := make([]int, k)
		for i, it := range items {
			values[i] = it.Value
		}
		return agent.Input[int]{Items: values}
	}
	return agent.Input[Item[int]]{Items: items}
}

func (sm *sim) cost() float64 {
	if !sm.sc.costs {
		return 0
	}
	burst := float64(sm.s.bucket.limit.Burst)
	return min(burst, []float64{0, 0.25, 1, 1.5, 2.5, burst}[sm.rnd.IntN(6)])
}

// staleTag is a tag no pending timer of the agent's carries now.
func (sm *sim) staleTag() uint64 {
	if !sm.s.armed {
		return sm.s.tag
	}
	return sm.s.tag + 1 + uint64(sm.rnd.IntN(2))*1000
}

// deliver stamps m, runs Evolve and checks what came back.
func (sm *sim) deliver(m agent.Msg) {
	if sm.finish > 0 {
		sm.fail("%T delivered after Finish", m)
	}
	prev := sm.s
	next, fx := Evolve(prev, agent.Stamp(m, sm.now))
	sm.n.messages++
	switch m := m.(type) {
	case agent.Tick:
		sm.n.ticks++
		sm.checkTick(prev, next, fx, m)
	case agent.Query:
		sm.checkQuery(prev, next, fx, m)
	case agent.Done[int], agent.Done[struct{}], agent.Set[float64], agent.Input[string], agent.Event[pace.Pass]:
		// The runtime fails an agent that leaves a message unhandled, so
		// nothing is performed.
		if len(fx) != 1 || fx[0] != agent.Effect(agent.Unhandled{}) || !same(prev, next) {
			sm.fail("%T: got %+v, want Unhandled alone and no change", m, fx)
		}
		sm.checkInvariants()
		return
	case agent.Pull:
		sm.pull(m.N)
	case agent.Close:
		sm.closed = true
	case agent.Event[pace.Reservation]:
		sm.reserve(m.Value)
	}
	sm.s = next
	sm.perform(fx)
	sm.checkInvariants()
}

func (sm *sim) pull(n int) {
	sm.pulled += n
	sm.grants = append(sm.grants, grant{upto: sm.pulled, at: sm.now})
}

// reserve counts the passes m reserves, or forgets those owed if it is the
// last: the agent after this one has ended, and reserves no more.
func (sm *sim) reserve(m pace.Reservation) {
	switch {
	case m.Last:
		sm.last, sm.lastStep, sm.lastAt, sm.forgot = true, sm.n.messages, sm.now, sm.owed > 0
		sm.owed = 0
	case m.N > 0 && !sm.last:
		sm.reserved += m.N
		sm.owed += m.N
		sm.reservations = append(sm.reservations, grant{upto: sm.reserved, at: sm.now})
	}
}

func (sm *sim) checkTick(prev, next State[int], fx []agent.Effect, m agent.Tick) {
	if !prev.armed || m.Tag != prev.tag {
		sm.n.stale++
		sm.checkUnchanged(prev, next, fx, "stale Tick")
		return
	}
	if sm.now.Before(prev.due) || !sm.sc.late && !sm.now.Equal(prev.due) {
		sm.fail("the pending Tick came at %v, not at its due instant %v", sm.now.Sub(t0), prev.due.Sub(t0))
	}
	if len(emitted(fx)) == 0 && grants(fx) == 0 {
		sm.fail("a Tick at or after its due instant let nothing through: %+v", prev.Status(sm.now))
	}
}

func (sm *sim) checkQuery(prev, next State[int], fx []agent.Effect, m agent.Query) {
	want := agent.Reply[Status]{To: m.ID, Value: prev.Status(sm.now)}
	if len(fx) != 1 || !reflect.DeepEqual(fx[0], agent.Effect(want)) || !same(prev, next) {
		sm.fail("Query: got %+v, want %+v and no change", fx, want)
	}
}

func (sm *sim) checkUnchanged(prev, next State[int], fx []agent.Effect, what string) {
	if len(fx) > 0 || !same(prev, next) {
		sm.fail("%s changed the state or asked for %+v", what, fx)
	}
}

// same reports whether a and b are the same state: equal fields, and the
// same queue, not merely an equal one.
func same(a, b State[int]) bool {
	if a.queue != b.queue {
		return false
	}
	return a.bucket == b.bucket && a.bound == b.bound && a.demand == b.demand &&
		a.passed == b.passed && a.tag == b.tag && a.due == b.due && a.armed == b.armed &&
		a.paced == b.paced && a.last == b.last && a.drained == b.drained &&
		a.owed == b.owed && a.granted == b.granted &&
		a.closed == b.closed && a.finished == b.finished
}

// perform plays the runtime's part for each effect, checking each.
func (sm *sim) perform(fx []agent.Effect) {
	timers, ends := 0, 0
	slots, out := 0, false // items emitted whose slots are not given back yet; any
	for _, e := range fx {
		switch e := e.(type) {
		case agent.Send[pace.Grant]:
			if out {
				sm.fail("Grant after Emit in %+v: passes go ahead of the items", fx)
			}
			sm.grant(e.Value.N)
		case agent.Emit[int]:
			if sm.owed > 0 {
				sm.fail("emitted %v while %d passes are owed", e.Values, sm.owed)
			}
			sm.emit(e.Values)
			slots += len(e.Values)
			out = true
		case agent.Demand:
			if e.N != slots {
				sm.fail("Demand %d for %d items emitted in %+v", e.N, slots, fx)
			}
			slots = 0
			sm.credits += e.N
		case agent.Timer:
			timers++
			sm.arm(e)
		case agent.Disarm:
			sm.disarm(e)
		case agent.Finish:
			ends++
			sm.finish++
			if e.Err != nil || !sm.closed || sm.s.queue.Len() > 0 || sm.finish > 1 {
				sm.fail("Finish %v (%d) while closed %v with %d queued", e.Err, sm.finish, sm.closed, sm.s.queue.Len())
			}
			if sm.sc.paced && !sm.last {
				sm.fail("Finish while the agent after it may still reserve passes")
			}
			// Nothing is left to evolve: no timer pending, no pass owed.
			if sm.s.armed || sm.s.Status(sm.now).Reserved != 0 {
				sm.fail("Finish with a timer armed (%v) or passes owed: %+v", sm.s.armed, sm.s.Status(sm.now))
			}
		case agent.Send[pace.Drained]:
			ends++
			sm.drained++
			if !sm.sc.paced || sm.last || !sm.closed || sm.s.queue.Len() > 0 || sm.drained > 1 {
				sm.fail("Drained (%d) while paced %v last %v closed %v with %d queued",
					sm.drained, sm.sc.paced, sm.last, sm.closed, sm.s.queue.Len())
			}
		case agent.Reply[Status]:
		default:
			sm.fail("unexpected effect %T", e)
		}
	}
	if timers > 1 || slots > 0 {
		sm.fail("%d timers in one step, %d input slots kept", timers, slots)
	}
	if grants(fx) > 0 && len(emitted(fx)) > 0 {
		sm.n.both++
	}
	if ends > 1 {
		sm.fail("Drained and Finish in one step: %+v", fx)
	}
}

// grant checks that the n passes granted were owed, and lets them through
// the bucket as units of cost 1.
func (sm *sim) grant(n int) {
	if n < 1 || n > sm.owed {
		sm.fail("Grant of %d passes with %d owed", n, sm.owed)
	}
	sm.owed -= n
	for range n {
		sm.units = append(sm.units, unit{value: -1, at: sm.now, step: sm.n.messages})
	}
	sm.passes += n
}

func (sm *sim) emit(values []int) {
	if len(sm.out)+len(values) > sm.pulled {
		sm.fail("emitted %d values holding demand for %d", len(values), sm.pulled-len(sm.out))
	}
	for _, v := range values {
		if v != len(sm.out) {
			sm.fail("emitted %d, want %d: out of order or twice", v, len(sm.out))
		}
		sm.out = append(sm.out, emission{value: v, at: sm.now})
		sm.units = append(sm.units, unit{value: v, at: sm.now, step: sm.n.messages})
	}
}

// disarm checks that the timer disarmed is pending. Its Tick stays queued, as
// one that had already fired would: it must then be found stale.
func (sm *sim) disarm(e agent.Disarm) {
	for _, p := range sm.timers {
		if p.tag == e.Tag {
			return
		}
	}
	sm.fail("Disarm %d: no such timer pending", e.Tag)
}

func (sm *sim) arm(e agent.Timer) {
	if e.Delay <= 0 || e.Tag != sm.s.tag || !sm.s.armed || !sm.now.Add(e.Delay).Equal(sm.s.due) {
		sm.fail("Timer %+v, state tag %d armed %v due %v", e, sm.s.tag, sm.s.armed, sm.s.due.Sub(t0))
	}
	sm.timers = append(sm.timers, pending{at: sm.now.Add(e.Delay + sm.lateness()), tag: e.Tag})
}

// lateness is how late the runtime delivers a Tick: never, unless the
// scenario says so; then often not at all, else a little or as long as a
// gap between messages, so that other messages come between the instant a
// timer was due and its Tick.
func (sm *sim) lateness() time.Duration {
	if !sm.sc.late {
		return 0
	}
	switch sm.rnd.IntN(4) {
	case 0:
		return 0
	case 1:
		return time.Duration(1 + sm.rnd.IntN(1000))
	}
	return time.Duration(sm.rnd.ExpFloat64() * float64(sm.sc.gap))
}

// checkInvariants checks what must hold between any two messages.
func (sm *sim) checkInvariants() {
	s := sm.s
	if sm.credits+s.queue.Len() != sm.sc.queue {
		sm.fail("%d credits + %d queued != queue %d", sm.credits, s.queue.Len(), sm.sc.queue)
	}
	if s.passed != len(sm.out) || s.demand != min(sm.pulled, agent.Unbounded)-len(sm.out) {
		sm.fail("passed %d demand %d, want %d and %d", s.passed, s.demand, len(sm.out), sm.pulled-len(sm.out))
	}
	live := 0
	for _, p := range sm.timers {
		if p.tag == s.tag && s.armed {
			live++
		}
	}
	if live > 1 || (s.armed && live != 1) {
		sm.fail("%d live timers pending, armed %v", live, s.armed)
	}
	// A Tick may be pending for this very instant, behind a message that
	// does not move the bucket (a query, a stale Tick), or come late.
	overdue := s.due.Before(sm.now) && !sm.sc.late
	if s.queue.Len() > 0 && s.demand > 0 && (!s.armed || overdue) {
		sm.fail("stalled: %d queued, demand %d, armed %v for +%v", s.queue.Len(), s.demand, s.armed, s.due.Sub(t0))
	}
	if sm.owed > 0 && (!s.armed || overdue) {
		sm.fail("stalled: %d passes owed, armed %v for +%v", sm.owed, s.armed, s.due.Sub(t0))
	}
	if st := s.Status(sm.now); st.Reserved != sm.owed || st.Granted != sm.passes {
		sm.fail("Status says %d reserved and %d granted, want %d and %d", st.Reserved, st.Granted, sm.owed, sm.passes)
	}
	sm.checkEnd()
}

// checkEnd checks that the agent said Drained or Finish when, and only
// when, its input has ended and it holds no item: Finish, unless the agent
// after it may still reserve passes; then Drained, and Finish once that
// agent has ended.
func (sm *sim) checkEnd() {
	done := sm.closed && sm.s.queue.Len() == 0
	wantFinish, wantDrained := done && (!sm.sc.paced || sm.last), done && sm.sc.paced && !sm.last
	if wantFinish != (sm.finish == 1) || wantDrained && sm.drained != 1 || !done && sm.drained != 0 {
		sm.fail("closed %v with %d queued, paced %v last %v: %d Finish, %d Drained",
			sm.closed, sm.s.queue.Len(), sm.sc.paced, sm.last, sm.finish, sm.drained)
	}
}

// drain closes the input, grants all the demand still wanted and delivers
// the remaining Ticks. An agent after it that has not ended reserves a few
// more passes once the agent has drained, then ends.
func (sm *sim) drain() {
	if sm.finish == 0 && !sm.closed {
		sm.deliver(agent.Close{})
	}
	if sm.finish == 0 && sm.s.demand < sm.s.queue.Len() {
		sm.deliver(agent.Pull{N: sm.s.queue.Len()})
	}
	sm.ticksUntil(time.Unix(1<<40, 0), true)
	if sm.sc.paced && !sm.last {
		if sm.drained != 1 || sm.owed != 0 {
			sm.fail("drained %d times with %d passes owed", sm.drained, sm.owed)
		}
		sm.deliver(pace.In(pace.Reservation{N: 1 + sm.rnd.IntN(3)}))
		sm.ticksUntil(time.Unix(1<<40, 0), true)
		sm.deliver(pace.In(pace.Reservation{Last: true}))
	}
	if sm.finish != 1 || len(sm.out) != len(sm.costs) {
		sm.fail("drained with %d of %d items out and %d Finish", len(sm.out), len(sm.costs), sm.finish)
	}
	if !sm.forgot && sm.passes != sm.reserved {
		sm.fail("%d of %d passes granted, none forgotten", sm.passes, sm.reserved)
	}
	sm.n.items += len(sm.out)
	sm.n.passes += sm.passes
}

// checkOutput checks, for a fixed limit and Ticks on time, that no stretch
// of the output took more tokens than the bucket can give, and that each
// item and pass came out when an exact model of the bucket says it should.
// (A late Tick lets out at once what was due at its due instant, charged as
// of that instant: the output then bunches up, as it should.)
func (sm *sim) checkOutput() {
	if sm.sc.reshape || sm.sc.late {
		return
	}
	sm.checkWindows()
	sm.compareWithModel()
}

// checkWindows checks that the items and passes out from the first one up
// to any instant t took at most burst + rate*t tokens (t measured from the
// first), and that any stretch between two of them took at most burst +
// rate*length, give or take what one nanosecond of refill brings: the
// bucket charges each at its exact instant, which falls up to a nanosecond
// before the whole nanosecond it goes out at.
func (sm *sim) checkWindows() {
	l := sm.sc.limit
	allow := func(from, to time.Time, sliver float64) float64 {
		return float64(l.Burst) + l.Rate*to.Sub(from).Seconds() + sliver + 1e-9
	}
	for i := range sm.units {
		taken := 0.0
		for j := i; j < len(sm.units); j++ {
			taken += sm.units[j].cost(sm.costs)
			sliver := l.Rate * time.Nanosecond.Seconds()
			if i == 0 {
				sliver = 0
			}
			if taken > allow(sm.units[i].at, sm.units[j].at, sliver) {
				sm.fail("units %d..%d (items and passes) took %v tokens in %v", i, j, taken, sm.units[j].at.Sub(sm.units[i].at))
			}
		}
	}
}

// cost returns the tokens u took: 1 for a pass, its item's price in costs
// for an item.
func (u unit) cost(costs []float64) float64 {
	if u.value < 0 {
		return 1
	}
	return costs[u.value]
}

// compareWithModel replays the items and passes, in the order they went,
// through a token bucket in exact rational arithmetic: each goes out at
// the first whole nanosecond at which it is ready and the bucket holds its
// cost. A pass is ready once it is reserved and the one before it is out;
// an item once it is in, downstream wants it and the one before it is out,
// and, if a Reservation with Last forgot passes owed, once that came: till
// then the items waited behind those passes. That passes go ahead of the
// items is checked at each step (see perform). The agent may differ from
// the model by a nanosecond.
func (sm *sim) compareWithModel() {
	m := newModel(sm.sc.exact, sm.sc.limit.Burst)
	passes := 0
	for k, u := range sm.units {
		var ready time.Time
		if u.value < 0 {
			ready = sm.reservedAt(passes)
			passes++
		} else {
			ready = maxTime(sm.posted[u.value], sm.granted(u.value))
		}
		if k > 0 {
			ready = maxTime(ready, sm.units[k-1].at)
		}
		if sm.forgot && u.step >= sm.lastStep {
			ready = maxTime(ready, sm.lastAt)
		}
		want := m.pass(ready, u.cost(sm.costs))
		if diff := u.at.Sub(want); diff.Abs() > time.Nanosecond {
			sm.fail("unit %d (item %d, -1 a pass) out at +%v, the exact model says +%v", k, u.value, u.at.Sub(t0), want.Sub(t0))
		} else if diff != 0 {
			sm.n.off++
		}
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// model is a token bucket in exact integer arithmetic. For a rate of A/B
// tokens per second, one unit is 1/(B*1e9) of a token, so the bucket gains
// A units per nanosecond; instants are in nanoseconds since t0, and the
// instant tokens was taken is kept as A times itself, so that it too is a
// whole number.
type model struct {
	a, b     *big.Int // the rate is a/b tokens per second
	burst    *big.Int // capacity, in units
	tokens   *big.Int // units at last
	last     *big.Int // a times the instant tokens was taken
	anchored bool
	costs    map[float64]*big.Int // units of each cost seen
}

func newModel(rate *big.Rat, burst int) *model {
	m := &model{a: rate.Num(), b: rate.Denom(), last: new(big.Int), costs: map[float64]*big.Int{}}
	m.burst = m.units(float64(burst))
	m.tokens = new(big.Int).Set(m.burst)
	return m
}

// units converts tokens to units; every cost the tests use converts exactly.
func (m *model) units(tokens float64) *big.Int {
	u := new(big.Rat).SetFloat64(tokens)
	u.Mul(u, new(big.Rat).SetInt(m.b))
	u.Mul(u, big.NewRat(int64(time.Second), 1))
	if !u.IsInt() {
		panic("a cost the model cannot hold exactly")
	}
	return u.Num()
}

// pass lets an item of the given cost through at or after ready, and returns
// the whole nanosecond it goes out at.
func (m *model) pass(ready time.Time, cost float64) time.Time {
	x := big.NewInt(ready.Sub(t0).Nanoseconds())
	c, ok := m.costs[cost]
	if !ok {
		c = m.units(cost)
		m.costs[cost] = c
	}
	c = new(big.Int).Set(c)
	if level := m.level(x); level.Cmp(c) >= 0 {
		m.tokens.Sub(level, c)
		m.last.Mul(m.a, x)
		m.anchored = true
		return ready
	}
	m.last.Add(m.last, c.Sub(c, m.tokens)) // the instant the bucket holds the cost
	m.tokens.SetInt64(0)
	out, rem := new(big.Int).QuoRem(m.last, m.a, new(big.Int))
	if rem.Sign() > 0 {
		out.Add(out, big.NewInt(1))
	}
	return t0.Add(time.Duration(out.Int64()))
}

// level returns the units held at instant x.
func (m *model) level(x *big.Int) *big.Int {
	l := new(big.Int).Set(m.tokens)
	if !m.anchored {
		return l
	}
	l.Add(l, new(big.Int).Mul(m.a, x))
	l.Sub(l, m.last)
	if l.Cmp(m.burst) > 0 {
		l.Set(m.burst)
	}
	return l
}

// grants returns the passes granted in fx.
func grants(fx []agent.Effect) int {
	n := 0
	for _, e := range fx {
		if e, ok := e.(agent.Send[pace.Grant]); ok {
			n += e.Value.N
		}
	}
	return n
}

// emitted returns the values emitted in fx.
func emitted(fx []agent.Effect) []int {
	var out []int
	for _, e := range fx {
		if e, ok := e.(agent.Emit[int]); ok {
			out = append(out, e.Values...)
		}
	}
	return out
}
