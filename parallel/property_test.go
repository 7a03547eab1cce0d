package parallel_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/parallel"
)

// TestRandomSequencesKeepEveryPromise drives Evolve with seeded random
// message sequences the way the runtime would (a feeder that posts only
// while it holds input slots, work that finishes in any order, downstream
// demand granted a little at a time, limit changes, queries, noise), then
// closes and drains. Messages are stamped with a clock that moves by random
// steps, so batches take random times and their sizes vary; some batches
// return too few results; a third of the agents cancel on error. After
// every message it checks the invariants against a model of what was sent,
// among them what State.Flight says of each batch in flight; at the end,
// that every accepted item came out exactly once, in order when ordered,
// and that Finish came once, last.
func TestRandomSequencesKeepEveryPromise(t *testing.T) {
	const sequences, messages = 2000, 200
	delivered, cancelled, abandoned := 0, 0, 0
	for seed := range uint64(sequences) {
		sim := newSim(t, seed)
		for range messages {
			sim.randomStep()
		}
		sim.drain()
		sim.checkEnd()
		delivered += sim.delivered
		abandoned += sim.abandoned
		if sim.cause != nil {
			cancelled++
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("%d sequences x %d random messages, then close and drain: %d messages in all, each evolved twice; "+
		"%d agents cancelled on error, failing %d items unstarted", sequences, messages, delivered, cancelled, abandoned)
}

// sim is the harness and the model: what has been sent to the agent and
// what it must therefore have done.
type sim struct {
	t     *testing.T
	seed  uint64
	r     *rand.Rand
	s     parallel.State[int, int]
	queue int // the input bound
	limit int // the limit last set

	cancels   bool        // Config.CancelOnError
	now       time.Time   // the clock messages are stamped with
	arrived   []time.Time // when each item posted was accepted, by Seq
	credits   int         // input slots the feeder holds
	accepted  int         // items posted
	started   int         // items started, by the Start effects seen
	abandoned int         // items failed unstarted once cancelled, by the Demand effects seen
	running   []flight    // batches in flight, by the Start effects seen
	finished  map[uint64]result
	emitted   []uint64 // Seqs in the order emitted
	demand    int      // granted minus emitted
	firstErr  error
	firstSeq  uint64 // the item that failed first
	cause     error  // the Cause of the agent.Cancel seen
	closed    bool
	finishes  int
	delivered int
}

// flight is a batch in flight as the model knows it: what State.Flight
// must report under its ID.
type flight struct {
	id uint64
	parallel.Flight
}

func newSim(t *testing.T, seed uint64) *sim {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	cfg := parallel.Config{
		Limit: 1 + r.IntN(6), Unordered: r.IntN(2) == 0, MaxBatch: []int{0, 1, 3}[r.IntN(3)],
		Timeout: time.Duration(r.IntN(2)) * time.Second, CancelOnError: r.IntN(3) == 0,
	}
	if r.IntN(4) > 0 {
		cfg.Queue = 1 + r.IntN(8)
	}
	s, err := parallel.NewState[int, int](cfg)
	if err != nil {
		t.Fatal(err)
	}
	sim := &sim{t: t, seed: seed, r: r, s: s, limit: cfg.Limit, cancels: cfg.CancelOnError, finished: map[uint64]result{}}
	sim.queue, sim.credits = s.Status().Queue, s.Status().Queue
	if r.IntN(3) == 0 {
		sim.deliver(agent.Pull{N: r.IntN(5)}) // a finite start; 0 is ignored
	} else {
		sim.deliver(agent.Pull{N: agent.Unbounded})
	}
	return sim
}

// randomStep delivers one message picked at random.
func (m *sim) randomStep() {
	switch k := m.r.IntN(100); {
	case k < 30 && len(m.running) > 0:
		m.complete()
	case k < 40:
		m.setLimit()
	case k < 52:
		m.deliver(agent.Pull{N: 1 + m.r.IntN(3)})
	case k < 57:
		m.query()
	case k < 62:
		m.noise()
	case k < 63:
		m.deliver(agent.Close{})
	default:
		m.post()
	}
}

// post sends as many items as the feeder holds slots for, up to three. After
// Close it still may (input already on its way is accepted), but not after
// Finish: the runtime delivers every item posted before Close ahead of it.
func (m *sim) post() {
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

// complete finishes one random batch in flight, failing one item in five.
// One batch in ten returns too few results, with an error for the rest.
func (m *sim) complete() {
	i := m.r.IntN(len(m.running))
	f := m.running[i]
	m.running = slices.Delete(m.running, i, i+1)
	rs := make([]result, f.Items)
	for j := range rs {
		seq := f.id + uint64(j)
		rs[j] = result{Seq: seq, Value: int(seq) * 10}
		if m.r.IntN(5) == 0 {
			rs[j].Err = fmt.Errorf("item %d failed", seq)
		}
	}
	var whole error
	sent := rs
	if m.r.IntN(10) == 0 {
		whole = errors.New("the batch broke")
		sent = rs[:m.r.IntN(f.Items)]
		for j := len(sent); j < f.Items; j++ {
			rs[j] = result{Seq: rs[j].Seq, Err: whole}
		}
	}
	for _, r := range rs {
		m.end(r)
	}
	m.deliver(agent.Done[[]result]{ID: f.id, Result: slices.Clone(sent), Err: whole})
}

// end records that the item r.Seq ended with r, which it must do once.
func (m *sim) end(r result) {
	if _, ok := m.finished[r.Seq]; ok {
		m.fail("item %d ended twice", r.Seq)
	}
	m.finished[r.Seq] = r
	if r.Err != nil && m.firstErr == nil {
		m.firstErr, m.firstSeq = r.Err, r.Seq
	}
}

// setLimit sends a new limit; one time in ten a bad one, which is ignored.
func (m *sim) setLimit() {
	n := 1 + m.r.IntN(6)
	if m.r.IntN(10) == 0 {
		m.ignored(agent.Set[parallel.Limit]{Value: parallel.Limit(-m.r.IntN(2))})
		return
	}
	m.limit = n
	m.deliver(agent.Set[parallel.Limit]{Value: parallel.Limit(n)})
}

func (m *sim) query() {
	id := m.r.Uint64()
	want := m.s.Status()
	fx := m.deliver(agent.Query{ID: id})
	if !sameEffects(fx, []agent.Effect{agent.Reply[parallel.Status]{To: id, Value: want}}) {
		m.fail("query answered with %v", fx)
	}
}

// noise sends a message the agent must ignore, or one of a type it does
// not take, which it must report as unhandled.
func (m *sim) noise() {
	if m.r.IntN(2) == 0 {
		wrong := []agent.Msg{
			agent.Tick{Tag: 3},
			agent.Set[int]{Value: 4},
			agent.Done[int]{ID: 0},
			agent.Done[[]parallel.Result[string]]{ID: 0},
			agent.Input[string]{Items: []string{"x"}},
		}
		m.unhandled(wrong[m.r.IntN(len(wrong))])
		return
	}
	msgs := []agent.Msg{
		agent.Pull{N: -m.r.IntN(3)},
		agent.Done[[]result]{ID: uint64(m.accepted + m.r.IntN(3))}, // never started
	}
	if len(m.emitted) > 0 {
		msgs = append(msgs, agent.Done[[]result]{ID: m.emitted[m.r.IntN(len(m.emitted))]}) // a duplicate, or inside a batch
	}
	m.ignored(msgs[m.r.IntN(len(msgs))])
}

// ignored delivers msg and checks that nothing changed.
func (m *sim) ignored(msg agent.Msg) {
	before := m.s
	if fx := m.deliver(msg); len(fx) > 0 || !reflect.DeepEqual(before, m.s) {
		m.fail("%#v was not ignored: %v", msg, fx)
	}
}

// unhandled delivers msg and checks that Evolve answered with Unhandled
// alone and changed nothing.
func (m *sim) unhandled(msg agent.Msg) {
	before := m.s
	if fx := m.deliver(msg); !sameEffects(fx, []agent.Effect{agent.Unhandled{}}) || !reflect.DeepEqual(before, m.s) {
		m.fail("%#v was not reported unhandled: %v", msg, fx)
	}
}

// drain closes the input, then finishes work and grants demand until the
// agent finishes.
func (m *sim) drain() {
	if !m.closed {
		m.deliver(agent.Close{})
	}
	for range 10 * (m.accepted + 10) {
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

// deliver evolves the state with msg, twice from the same state to check
// that Evolve changed nothing it was given, then checks the effects and the
// invariants.
func (m *sim) deliver(msg agent.Msg) []agent.Effect {
	m.now = m.now.Add(time.Duration(m.r.IntN(50)) * time.Microsecond)
	msg = agent.Stamp(msg, m.now)
	before, was := m.s, m.s.Status()
	next, fx := parallel.Evolve(before, msg)
	again, fx2 := parallel.Evolve(before, msg)
	if !reflect.DeepEqual(next.Status(), again.Status()) || !sameEffects(fx, fx2) || !reflect.DeepEqual(before.Status(), was) {
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
	case agent.Input[int]:
		for range msg.Items {
			m.arrived = append(m.arrived, m.now)
		}
	}
	m.effects(was, fx)
	m.invariants()
	return fx
}

// effects checks the effects against the model and updates it: first the
// Cancel, then the Starts and the Demand (which, once cancelled, gives back
// the slots of the items failed unstarted), then what was emitted, in
// order, and the Finish.
func (m *sim) effects(was parallel.Status, fx []agent.Effect) {
	st := m.s.Status()
	for _, e := range agenttest.Of[agent.Cancel](fx) {
		m.cancel(e)
	}
	if (m.cancels && m.firstErr != nil) != (m.cause != nil) {
		m.fail("first failure %v, cancellation %v, cancelling on error: %v", m.firstErr, m.cause, m.cancels)
	}
	starts := 0
	for _, e := range fx {
		switch e := e.(type) {
		case agent.Start[[]int]:
			m.start(e, st)
			starts++
		case agent.Demand:
			m.credits += e.N
			if m.cause != nil {
				m.abandon(e.N)
			}
		}
	}
	for _, e := range fx {
		switch e := e.(type) {
		case agent.Emit[result]:
			m.emit(e.Values)
		case agent.Finish:
			m.finish(e)
		}
	}
	if starts > 0 && st.Batches > st.Limit {
		m.fail("started work with %d batches in flight over a limit of %d", st.Batches, st.Limit)
	}
	if starts > 0 && !st.Unordered && st.Held >= st.Limit*st.Batch {
		m.fail("started work while %d results were held, limit %d, batches of %d", st.Held, st.Limit, st.Batch)
	}
	if starts == 0 && (st.Batches > was.Batches || st.InFlight > was.InFlight) {
		m.fail("in flight grew from %d to %d batches, %d to %d items, without a start",
			was.Batches, st.Batches, was.InFlight, st.InFlight)
	}
}

// cancel checks that e is the one cancellation, asked for by the first
// failure and naming it.
func (m *sim) cancel(e agent.Cancel) {
	want := fmt.Sprintf("parallel: cancelled after item %d failed: %v", m.firstSeq, m.firstErr)
	switch {
	case !m.cancels:
		m.fail("cancelled %v, though not cancelling on error", e.Cause)
	case m.cause != nil:
		m.fail("cancelled twice: %v, then %v", m.cause, e.Cause)
	case e.Cause == nil || e.Cause.Error() != want || !errors.Is(e.Cause, m.firstErr):
		m.fail("cancelled with %v, want %q wrapping the first failure", e.Cause, want)
	}
	m.cause = e.Cause
}

// start checks that e starts the next items, no more than a batch may hold,
// and that State.Flight describes it: started now, waited since its first
// item was accepted, among the batches in flight.
func (m *sim) start(e agent.Start[[]int], st parallel.Status) {
	n := len(e.Work)
	if m.cause != nil {
		m.fail("start %+v after the cancellation", e)
	}
	if n < 1 || n > st.Batch || n > st.MaxBatch {
		m.fail("start %+v: %d items, batches of %d at most, max batch %d", e, n, st.Batch, st.MaxBatch)
	}
	if e.ID != uint64(m.started) {
		m.fail("start %+v, want the batch from item %d", e, m.started)
	}
	for i, v := range e.Work {
		if v != m.started+i {
			m.fail("start %+v, want items from %d", e, m.started)
		}
	}
	want := parallel.Flight{Start: m.now, Wait: m.now.Sub(m.arrived[e.ID]), Items: n, Among: len(m.running) + 1}
	if want.Wait < 0 {
		m.fail("item %d started at %v, before it was accepted at %v", e.ID, m.now, m.arrived[e.ID])
	}
	m.started += n
	m.running = append(m.running, flight{id: e.ID, Flight: want})
}

// abandon records that the next n items, which were not started, failed
// with the cause of the cancellation.
func (m *sim) abandon(n int) {
	for range n {
		seq := uint64(m.started + m.abandoned)
		m.end(result{Seq: seq, Err: m.cause})
		m.abandoned++
	}
}

func (m *sim) emit(values []result) {
	for _, r := range values {
		want, ok := m.finished[r.Seq]
		if !ok || r != want {
			m.fail("emitted %+v, want %+v (finished: %v)", r, want, ok)
		}
		if slices.Contains(m.emitted, r.Seq) {
			m.fail("emitted Seq %d twice", r.Seq)
		}
		if !m.s.Status().Unordered && r.Seq != uint64(len(m.emitted)) {
			m.fail("emitted Seq %d out of order, want %d", r.Seq, len(m.emitted))
		}
		m.emitted = append(m.emitted, r.Seq)
		m.demand--
	}
}

func (m *sim) finish(e agent.Finish) {
	m.finishes++
	switch {
	case m.finishes > 1:
		m.fail("finished twice")
	case !m.closed:
		m.fail("finished before Close")
	case len(m.emitted) != m.accepted:
		m.fail("finished with %d of %d items emitted", len(m.emitted), m.accepted)
	case e.Err != m.firstErr:
		m.fail("finished with %v, want the first failure %v", e.Err, m.firstErr)
	}
}

// invariants checks the agent's status against the model.
func (m *sim) invariants() {
	st := m.s.Status()
	switch {
	case st.Limit != m.limit:
		m.fail("limit %d, want %d", st.Limit, m.limit)
	case st.Queued != m.accepted-m.started-m.abandoned || st.Queued+m.credits != m.queue:
		m.fail("%d queued and %d slots held by the feeder, bound %d", st.Queued, m.credits, m.queue)
	case st.Batches != len(m.running):
		m.fail("%d batches in flight, want %d", st.Batches, len(m.running))
	case st.InFlight != m.started+m.abandoned-len(m.finished):
		m.fail("%d items in flight, want %d", st.InFlight, m.started+m.abandoned-len(m.finished))
	case int(st.Demand) != m.demand || m.demand < 0:
		m.fail("demand %d, want %d", st.Demand, m.demand)
	case st.InFlight+st.Held > int(st.Demand):
		m.fail("%d in flight and %d held exceed the demand of %d", st.InFlight, st.Held, st.Demand)
	case st.Done != len(m.finished) || st.Emitted != len(m.emitted) || st.Accepted != m.accepted:
		m.fail("counts %+v, want %d done, %d emitted, %d accepted", st, len(m.finished), len(m.emitted), m.accepted)
	case st.Failed != m.failures():
		m.fail("%d failed, want %d", st.Failed, m.failures())
	case st.Held != len(m.finished)-len(m.emitted):
		m.fail("%d held, want %d", st.Held, len(m.finished)-len(m.emitted))
	}
	m.flights()
}

// flights checks what State.Flight says of each batch the model has in
// flight, and of an ID it has not.
func (m *sim) flights() {
	for _, f := range m.running {
		if got, ok := m.s.Flight(f.id); !ok || got != f.Flight {
			m.fail("flight %d: %+v (in flight: %v), want %+v", f.id, got, ok, f.Flight)
		}
	}
	if got, ok := m.s.Flight(uint64(m.accepted)); ok {
		m.fail("flight %d, never started: %+v", m.accepted, got)
	}
}

// failures counts the finished items that failed.
func (m *sim) failures() int {
	n := 0
	for _, r := range m.finished {
		if r.Err != nil {
			n++
		}
	}
	return n
}

// checkEnd checks that every accepted item came out exactly once.
func (m *sim) checkEnd() {
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

func (m *sim) fail(format string, args ...any) {
	m.t.Helper()
	m.t.Fatalf("seed %d, message %d: %s", m.seed, m.delivered, fmt.Sprintf(format, args...))
}

// sameEffects reports whether a and b are the same effects. It is
// reflect.DeepEqual made cheap enough to run on every message, and it takes
// two errors with the same message for the same: the cause of a
// cancellation is made anew each time Evolve asks for one.
func sameEffects(a, b []agent.Effect) bool {
	return slices.EqualFunc(a, b, func(x, y agent.Effect) bool {
		switch ex := x.(type) {
		case agent.Emit[result]:
			ey, ok := y.(agent.Emit[result])
			return ok && slices.EqualFunc(ex.Values, ey.Values, func(p, q result) bool {
				return p.Seq == q.Seq && p.Value == q.Value && sameError(p.Err, q.Err)
			})
		case agent.Cancel:
			ey, ok := y.(agent.Cancel)
			return ok && sameError(ex.Cause, ey.Cause)
		case agent.Start[[]int]:
			ey, ok := y.(agent.Start[[]int])
			return ok && ex.ID == ey.ID && slices.Equal(ex.Work, ey.Work)
		case agent.DeadLetter:
			ey, ok := y.(agent.DeadLetter)
			return ok && ex.Seq == ey.Seq && ex.Item == ey.Item && ex.Attempts == ey.Attempts && sameError(ex.Err, ey.Err)
		}
		return reflect.DeepEqual(x, y)
	})
}

// sameError reports whether a and b are the same error, or two with the
// same message.
func sameError(a, b error) bool {
	return a == b || a != nil && b != nil && a.Error() == b.Error()
}
