package chain

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/internal/fuzzin"
)

// FuzzEvolveGate drives evolveGate, the overflow gate's behaviour, with
// message sequences decoded from the fuzzer's bytes, the way the runtime
// would: Input only within the input slots the stage gave back (it gives
// each one back at once), demand granted a little at a time or all at
// once, queries, Close once, and messages of types it does not take. A
// model of the stage (the newest bound items kept, passed on in order as
// demand allows) predicts every effect and count. After every message it
// checks that the stage gave back exactly the slots of the items posted,
// emitted in order what the model says and no more than the demand
// granted, dropped only the oldest and only to stay within its bound,
// holds nothing while it holds demand, answered a query with its status,
// and reported Unhandled only, and changing nothing, for a message of a
// type it does not take. After Close and the drain, every item posted was
// passed on or dropped, exactly once, and Finish came once, last.
//
// The first two bytes are the bound and the first demand; the rest are
// records of three bytes, a kind, an argument and a step of the clock (see
// fzGateStep).
func FuzzEvolveGate(f *testing.F) {
	f.Add([]byte{0, 0})
	f.Add([]byte{2, 2, 0, 1, 0, 0, 4, 1, 2, 1, 0, 3, 0, 9, 3, 1, 15, 0, 0})
	f.Add([]byte{4, 0, 0, 7, 1, 0, 7, 0, 10, 2, 5, 11, 0, 0, 0, 3, 0, 12, 1, 0, 2, 0, 0, 15, 0, 0})
	f.Add([]byte{7, 1, 9, 0, 1, 0, 3, 0, 0, 6, 0, 12, 2, 3, 14, 0, 0, 11, 9, 0, 15, 0, 1, 1, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzin.New(data)
		m := fzNewGate(t, in)
		for n := 0; in.More() && n < fzMaxSteps && m.finishes == 0; n++ {
			fzGateStep(m, in)
		}
		m.drain()
	})
}

// fzMaxSteps bounds the messages decoded from one input, to keep each run
// of the fuzz function short.
const fzMaxSteps = 500

// fzGate is the harness and the model of the overflow gate.
type fzGate struct {
	t         *testing.T
	s         gate[int]
	now       time.Time
	delivered int

	bound    int
	credits  int   // input slots the feeder holds
	posted   int   // items posted: item v is the v-th posted
	queue    []int // what the stage must hold, oldest first
	out      []int // what it passed on, in order
	dropped  []int // what it dropped
	demand   int   // granted and not used
	granted  int   // demand granted in all, capped at agent.Unbounded
	closed   bool
	finishes int
}

// fzNewGate builds the stage for the bound the input's first byte says
// (1 + b%8) and grants it the demand its second byte says: all it will
// ever need if 0, else b%8, which may be nothing.
func fzNewGate(t *testing.T, in *fuzzin.Bytes) *fzGate {
	b0, b1 := in.Byte(), in.Byte()
	bound := 1 + int(b0)%8
	m := &fzGate{t: t, s: gate[int]{bound: bound}, now: agenttest.T0, bound: bound, credits: bound}
	if b1 == 0 {
		m.deliver(agent.Pull{N: agent.Unbounded})
	} else {
		m.deliver(agent.Pull{N: int(b1) % 8})
	}
	return m
}

// fzGateStep decodes one record: the clock moves on by the record's third
// byte, in microseconds, then comes what the kind says:
//
//	kind%16 0-7: 1 + a%bound items, within the slots the feeder holds
//	       8-10: a grant of a%4 demand (0 changes nothing)
//	         11: a query
//	         12: a message of a type the stage does not take
//	      13-14: nothing but the step of the clock
//	         15: Close, once, if a%8 is 0 (else nothing but the clock)
func fzGateStep(m *fzGate, in *fuzzin.Bytes) {
	kind, a, dt := in.Byte(), in.Byte(), in.Byte()
	m.now = m.now.Add(time.Duration(dt) * time.Microsecond)
	switch kind % 16 {
	case 0, 1, 2, 3, 4, 5, 6, 7:
		m.post(1 + int(a)%m.bound)
	case 8, 9, 10:
		m.deliver(agent.Pull{N: int(a) % 4})
	case 11:
		m.query(uint64(a))
	case 12:
		m.unhandled([]agent.Msg{
			agent.Done[int]{ID: 1}, agent.Tick{Tag: 1}, agent.Set[int]{Value: 2},
			agent.Input[string]{Items: []string{"x"}}, agent.Event[int]{Value: 3},
		}[a%5])
	case 15:
		if !m.closed && a%8 == 0 {
			m.deliver(agent.Close{})
		}
	}
}

// post sends n items, no more than the feeder holds slots for, and none
// after Close: the runtime delivers every item posted before Close ahead
// of it.
func (m *fzGate) post(n int) {
	n = min(n, m.credits)
	if n == 0 || m.closed {
		return
	}
	items := make([]int, n)
	for i := range items {
		items[i] = m.posted + i
	}
	m.posted += n
	m.credits -= n
	m.deliver(agent.Input[int]{Items: items})
}

// query checks that a Query is answered with the stage's status, as the
// model has it, and changes nothing.
func (m *fzGate) query(id uint64) {
	before := m.s
	fx := m.deliver(agent.Query{ID: id})
	want := overflowStatus{
		Load:  agent.Load{Queued: len(m.queue), Done: len(m.out), Demand: agent.Credit(m.demand)},
		Bound: m.bound, Dropped: len(m.dropped),
	}
	if !reflect.DeepEqual(fx, []agent.Effect{agent.Reply[overflowStatus]{To: id, Value: want}}) || !reflect.DeepEqual(before, m.s) {
		m.fail("query %d answered with %v, want %+v", id, fx, want)
	}
}

// unhandled checks that msg is answered with Unhandled alone and changes
// nothing.
func (m *fzGate) unhandled(msg agent.Msg) {
	before := m.s
	next, fx := evolveGate(m.s, agent.Stamp(msg, m.now))
	m.delivered++
	if !reflect.DeepEqual(fx, []agent.Effect{agent.Unhandled{}}) || !reflect.DeepEqual(before, next) {
		m.fail("%#v: got %v, want Unhandled alone and no change", msg, fx)
	}
}

// deliver evolves the stage with msg, stamped with the clock, makes the
// model do what msg asks, checks the effects against it and the
// invariants, and returns the effects.
func (m *fzGate) deliver(msg agent.Msg) []agent.Effect {
	msg = agent.Stamp(msg, m.now)
	var fx []agent.Effect
	m.s, fx = evolveGate(m.s, msg)
	m.delivered++
	posted := 0
	switch msg := msg.(type) {
	case agent.Input[int]:
		posted = len(msg.Items)
		m.queue = append(m.queue, msg.Items...)
	case agent.Pull:
		if msg.N > 0 {
			m.demand = min(m.demand+msg.N, agent.Unbounded)
			m.granted = min(m.granted+msg.N, agent.Unbounded)
		}
	case agent.Close:
		m.closed = true
	case agent.Query:
		return fx // query checks the Reply
	}
	m.effects(msg, fx, posted)
	if over := len(m.queue) - m.bound; over > 0 {
		m.dropped = append(m.dropped, m.queue[:over]...)
		m.queue = slices.Clone(m.queue[over:])
	}
	m.invariants()
	return fx
}

// effects checks the effects of msg, which posted the given number of
// items: the slots of those given back first, then what the model passes
// on, then Finish once the input is closed and nothing is held.
func (m *fzGate) effects(msg agent.Msg, fx []agent.Effect, posted int) {
	var want []agent.Effect
	if posted > 0 {
		want = append(want, agent.Demand{N: posted})
		m.credits += posted
	}
	if n := min(len(m.queue), m.demand); n > 0 {
		want = append(want, agent.Emit[int]{Values: slices.Clone(m.queue[:n])})
		m.out = append(m.out, m.queue[:n]...)
		m.queue = slices.Clone(m.queue[n:])
		m.demand -= n
	}
	if m.closed && m.finishes == 0 && len(m.queue) == 0 {
		want = append(want, agent.Finish{})
		m.finishes++
	}
	if !reflect.DeepEqual(fx, want) {
		m.fail("%#v: effects %v, want %v", msg, fx, want)
	}
}

// invariants checks the stage against the model: what it holds, its
// counts, its bound, the demand and the slots.
func (m *fzGate) invariants() {
	st := m.s.status()
	switch {
	case !slices.Equal(m.s.queue.Values(), m.queue):
		m.fail("holds %v, want %v", m.s.queue.Values(), m.queue)
	case m.s.queue.Len() > m.bound:
		m.fail("holds %d items over a bound of %d", m.s.queue.Len(), m.bound)
	case st.Done != len(m.out) || st.Dropped != len(m.dropped) || int(st.Demand) != m.demand || st.Queued != len(m.queue):
		m.fail("status %+v; passed %d, dropped %d, demand %d, held %d", st, len(m.out), len(m.dropped), m.demand, len(m.queue))
	case len(m.out) > m.granted:
		m.fail("passed %d on with %d demand granted", len(m.out), m.granted)
	case m.demand > 0 && len(m.queue) > 0:
		m.fail("holds %d items with a demand of %d", len(m.queue), m.demand)
	case m.credits != m.bound:
		m.fail("the feeder holds %d slots of %d", m.credits, m.bound)
	case m.s.closed != m.closed || m.s.finished != (m.finishes > 0):
		m.fail("closed %v finished %v, want %v and %v", m.s.closed, m.s.finished, m.closed, m.finishes > 0)
	}
	for i, v := range m.out {
		if i > 0 && v <= m.out[i-1] {
			m.fail("passed on %v: out of order or twice", m.out)
		}
	}
}

// drain closes the input if the sequence did not, grants demand until the
// stage finishes, and checks that every item posted was passed on or
// dropped, exactly once.
func (m *fzGate) drain() {
	if !m.closed {
		m.deliver(agent.Close{})
	}
	for range m.bound + 1 {
		if m.finishes > 0 {
			break
		}
		m.deliver(agent.Pull{N: 1})
	}
	if m.finishes != 1 {
		m.fail("drained with %d finishes, %d held", m.finishes, len(m.queue))
	}
	all := slices.Concat(m.out, m.dropped)
	slices.Sort(all)
	for i, v := range all {
		if v != i {
			m.fail("passed on %v and dropped %v: want every one of %d items once", m.out, m.dropped, m.posted)
		}
	}
	if len(all) != m.posted {
		m.fail("passed on %d and dropped %d of %d items", len(m.out), len(m.dropped), m.posted)
	}
}

func (m *fzGate) fail(format string, args ...any) {
	m.t.Helper()
	m.t.Fatalf("message %d: "+format, append([]any{m.delivered}, args...)...)
}
