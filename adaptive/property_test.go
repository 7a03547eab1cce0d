package adaptive_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/parallel"
)

// chaos is a controller that asks for a random limit, often out of bounds,
// drawing from the agent's source.
type chaos struct{}

func (chaos) Name() string        { return "chaos" }
func (chaos) View() adaptive.View { return adaptive.View{} }
func (c chaos) Observe(s adaptive.Sample, r *rand.Rand) (adaptive.Controller, int) {
	return c, s.Limit + r.IntN(11) - 5
}

// TestRandomSequencesKeepEveryPromise drives Evolve with seeded random
// message sequences the way the runtime would (a feeder that posts only
// while it holds input slots, work that finishes in any order after random
// service times, downstream demand granted a little at a time, limits set
// by hand, queries, messages that change nothing), with Hill, Fixed and a
// controller that asks for random limits, some with CancelOnError, then
// closes and drains. After every message it checks the promises against a
// model of what was sent: no work starts beyond the current limit, the
// limit stays within [Min, Max], no more is emitted than demanded, nothing
// starts after the one cancellation, and Evolve changed nothing it was
// given; at the end, that every accepted item came out exactly once and
// Finish came once, last.
func TestRandomSequencesKeepEveryPromise(t *testing.T) {
	const sequences, messages = 1200, 150
	delivered := 0
	for seed := range uint64(sequences) {
		m := newModel(t, seed)
		for range messages {
			m.randomStep()
		}
		m.drain()
		m.checkEnd()
		delivered += m.delivered
		if t.Failed() {
			return
		}
	}
	t.Logf("%d sequences x %d random messages, then close and drain: %d messages in all, each evolved twice",
		sequences, messages, delivered)
}

// model is the harness and the model of what the agent must have done.
type model struct {
	t        *testing.T
	seed     uint64
	r        *rand.Rand
	s        adaptive.State[int, int]
	now      time.Duration
	min, max int

	credits, queue, accepted, started int
	running                           []uint64
	finished                          map[uint64]bool
	emitted                           []uint64
	demand                            int
	closed                            bool
	finishes, cancels, delivered      int
}

func newModel(t *testing.T, seed uint64) *model {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	ctls := []adaptive.Controller{chaos{}, adaptive.Hill{MinSamples: 2}, adaptive.Fixed{}}
	lo := 1 + r.IntN(3)
	hi := lo + r.IntN(6)
	cfg := adaptive.Config{Min: lo, Max: hi, Initial: lo + r.IntN(hi-lo+1), Unordered: r.IntN(2) == 0,
		CancelOnError: r.IntN(4) == 0, Controller: ctls[r.IntN(len(ctls))], Seed: seed}
	if r.IntN(4) > 0 {
		cfg.Queue = 1 + r.IntN(8)
	}
	s, err := adaptive.NewState[int, int](cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := &model{t: t, seed: seed, r: r, s: s, min: lo, max: hi, finished: map[uint64]bool{}}
	m.queue, m.credits = s.Status().Queue, s.Status().Queue
	if r.IntN(3) == 0 {
		m.deliver(agent.Pull{N: 1 + r.IntN(4)})
	} else {
		m.deliver(agent.Pull{N: agent.Unbounded})
	}
	return m
}

// randomStep moves time on a little and delivers one message picked at
// random.
func (m *model) randomStep() {
	m.now += time.Duration(m.r.IntN(20)) * time.Millisecond
	switch k := m.r.IntN(100); {
	case k < 40 && len(m.running) > 0:
		m.complete()
	case k < 45:
		m.deliver(agent.Set[adaptive.Limit]{Value: adaptive.Limit(m.r.IntN(12) - 2)})
	case k < 57:
		m.deliver(agent.Pull{N: 1 + m.r.IntN(3)})
	case k < 60:
		m.deliver(agent.Query{ID: m.r.Uint64()})
	case k < 63:
		m.deliver([]agent.Msg{agent.Pull{N: -1}, agent.Set[adaptive.Limit]{Value: -1}, agent.Done[[]parallel.Result[int]]{ID: 1 << 40}}[m.r.IntN(3)])
	case k < 64:
		m.deliver(agent.Close{})
	default:
		m.post()
	}
}

// post sends up to three items, as many as the feeder holds slots for.
func (m *model) post() {
	if m.credits == 0 || m.finishes > 0 {
		return
	}
	n := 1 + m.r.IntN(min(m.credits, 3))
	items := make([]int, n)
	for i := range items {
		items[i] = m.accepted + i
	}
	m.credits -= n
	m.accepted += n
	m.deliver(agent.Input[int]{Items: items})
}

// complete finishes one random piece of work in flight.
func (m *model) complete() {
	id := m.running[m.r.IntN(len(m.running))]
	m.running = slices.DeleteFunc(m.running, func(x uint64) bool { return x == id })
	m.finished[id] = true
	var err error
	if m.r.IntN(8) == 0 {
		err = fmt.Errorf("item %d failed", id)
	}
	m.deliver(agent.Done[[]parallel.Result[int]]{ID: id, Result: []parallel.Result[int]{{Seq: id, Value: int(id), Err: err}}})
}

// drain closes the input, then finishes work and grants demand until the
// agent finishes.
func (m *model) drain() {
	if !m.closed {
		m.deliver(agent.Close{})
	}
	for range 10 * (m.accepted + 10) {
		m.now += time.Millisecond
		switch {
		case m.finishes > 0:
			return
		case len(m.running) > 0:
			m.complete()
		default:
			m.deliver(agent.Pull{N: 1 + m.r.IntN(3)})
		}
	}
	m.fail("the agent never finished")
}

// deliver evolves the state with msg twice from the same state, checks that
// both agree and that the state given is untouched, then checks the effects
// and the invariants. States are compared by what they show: their queues
// share storage between versions, so two equal states need not be laid out
// alike.
func (m *model) deliver(msg agent.Msg) {
	msg = agent.Stamp(msg, agenttest.T0.Add(m.now))
	before := m.s
	was := before.Status()
	next, fx := adaptive.Evolve(before, msg)
	again, fx2 := adaptive.Evolve(before, msg)
	if !reflect.DeepEqual(next.Status(), again.Status()) || !reflect.DeepEqual(fx, fx2) || !reflect.DeepEqual(before.Status(), was) {
		m.fail("evolving the same state twice with %#v gave different answers", msg)
	}
	m.s = next
	m.delivered++
	switch msg := msg.(type) {
	case agent.Pull:
		if msg.N > 0 {
			m.demand = min(m.demand+msg.N, agent.Unbounded)
		}
	case agent.Close:
		m.closed = true
	}
	m.effects(fx)
}

// effects checks each effect against the model and updates it.
func (m *model) effects(fx []agent.Effect) {
	st := m.s.Status()
	starts := 0
	for _, e := range fx {
		switch e := e.(type) {
		case agent.Start[[]int]:
			if m.cancels > 0 {
				m.fail("started %+v after the first failure cancelled the rest", e)
			}
			if e.ID != uint64(m.started) || !slices.Equal(e.Work, []int{m.started}) {
				m.fail("start %+v, want item %d alone", e, m.started)
			}
			m.started++
			starts++
			m.running = append(m.running, e.ID)
		case agent.Demand:
			m.credits += e.N
		case agent.Emit[parallel.Result[int]]:
			m.emit(e.Values)
		case agent.Finish:
			m.finishes++
		case agent.Cancel:
			m.cancels++
		case agent.Unhandled:
			m.fail("did not handle %T", e)
		}
	}
	switch {
	case st.Limit < m.min || st.Limit > m.max:
		m.fail("limit %d outside [%d, %d]", st.Limit, m.min, m.max)
	case starts > 0 && len(m.running) > st.Limit:
		m.fail("started work with %d in flight over a limit of %d", len(m.running), st.Limit)
	case st.InFlight != len(m.running) || st.Batches != len(m.running) || st.Queued+m.credits != m.queue || m.credits > m.queue:
		m.fail("status %+v, model: %d running, %d slots held", st, len(m.running), m.credits)
	case m.demand < 0 || int(st.Demand) != m.demand:
		m.fail("demand %d, want %d", st.Demand, m.demand)
	case m.finishes > 1 || m.finishes == 1 && !m.closed:
		m.fail("%d finishes, closed %v", m.finishes, m.closed)
	case m.cancels > 1:
		m.fail("cancelled %d times", m.cancels)
	}
}

func (m *model) emit(values []parallel.Result[int]) {
	for _, r := range values {
		abandoned := m.cancels > 0 && r.Seq >= uint64(m.started) && r.Err != nil // failed unstarted after the cancel
		if !m.finished[r.Seq] && !abandoned || slices.Contains(m.emitted, r.Seq) {
			m.fail("emitted Seq %d: finished %v, emitted before %v", r.Seq, m.finished[r.Seq], slices.Contains(m.emitted, r.Seq))
		}
		m.emitted = append(m.emitted, r.Seq)
		m.demand--
	}
}

// checkEnd checks that every accepted item came out exactly once.
func (m *model) checkEnd() {
	got := slices.Clone(m.emitted)
	slices.Sort(got)
	for i, seq := range got {
		if seq != uint64(i) {
			m.fail("Seqs emitted %v, want 0..%d once each", got, m.accepted-1)
			return
		}
	}
	if len(got) != m.accepted || m.finishes != 1 {
		m.fail("%d of %d items emitted, %d finishes", len(got), m.accepted, m.finishes)
	}
}

func (m *model) fail(format string, args ...any) {
	m.t.Helper()
	m.t.Fatalf("seed %d, message %d: %s", m.seed, m.delivered, fmt.Sprintf(format, args...))
}
