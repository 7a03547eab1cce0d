package buffer_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
)

// TestProperties drives Evolve with seeded random sequences, playing the
// runtime's part: the feeder posts only while it holds input slots, the
// running flush ends (sometimes failing), timers tick at their due time, and
// downstream grants demand. After every message it checks what must always
// hold, and after Close that everything accepted came out once, in order.
func TestProperties(t *testing.T) {
	const sequences, messages = 2000, 200
	var total tally
	for seed := range uint64(sequences) {
		sim := newSim(t, seed)
		sim.run(messages)
		total.add(sim.tally)
	}
	t.Logf("%d sequences x %d messages (+ drain): %d messages, %d items, %d batches (%d cut by linger, %d failed), %d stale ticks",
		sequences, messages, total.messages, total.items, total.batches, total.lingered, total.failed, total.stale)
	if total.lingered == 0 || total.failed == 0 || total.stale == 0 {
		t.Errorf("the sequences never exercised linger, failures or stale ticks: %+v", total)
	}
}

type tally struct {
	messages, items, batches, lingered, failed, stale int
}

func (a *tally) add(b tally) {
	a.messages += b.messages
	a.items += b.items
	a.batches += b.batches
	a.lingered += b.lingered
	a.failed += b.failed
	a.stale += b.stale
}

// timer is a linger timer the simulated runtime has armed.
type timer struct {
	tag uint64
	due time.Time
}

// sim is the simulated runtime around one buffer state, and the record of
// everything it saw.
type sim struct {
	t         *testing.T
	seed      uint64
	rng       *rand.Rand
	cfg       buffer.Config
	throttled bool // downstream grants demand a little at a time

	s       buffer.State[int]
	now     time.Time
	credits int
	arrived []time.Time // arrival instant of item i; items are 0, 1, 2, ...
	timers  []timer     // armed, not yet fired
	fired   []uint64    // tags of the last timers fired
	running *agent.Start[[]int]
	taken   int // items whose flush has started

	started   [][]int // batches in the order their flush started
	emitted   [][]int
	failed    [][]int
	pulled    int
	firstErr  error
	closed    bool
	finishes  int
	finishErr error
	tally
}

func newSim(t *testing.T, seed uint64) *sim {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	cfg := buffer.Config{Size: 1 + rng.IntN(8)}
	if rng.IntN(4) > 0 {
		cfg.MaxWait = time.Duration(1+rng.IntN(50)) * time.Millisecond
	}
	if rng.IntN(2) == 0 {
		cfg.Queue = cfg.Size + rng.IntN(2*cfg.Size)
	}
	s, err := buffer.NewState[int](cfg)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	return &sim{
		t: t, seed: seed, rng: rng, cfg: cfg, throttled: rng.IntN(3) == 0,
		s: s, now: time.Unix(0, 0), credits: s.Status().Queue,
	}
}

func (m *sim) fatalf(format string, args ...any) {
	m.t.Helper()
	m.t.Fatalf("seed %d, message %d, %+v: %s", m.seed, m.messages, m.cfg, fmt.Sprintf(format, args...))
}

func (m *sim) run(messages int) {
	if m.throttled {
		m.send(agent.Pull{N: m.rng.IntN(3)})
	} else {
		m.send(agent.Pull{N: agent.Unbounded})
	}
	for m.messages < messages {
		m.advance(time.Duration(m.rng.IntN(20)) * time.Millisecond)
		m.act()
	}
	m.closed = true
	m.send(agent.Close{})
	m.drain()
	m.finalChecks()
}

// advance moves the clock by d, delivering every timer that falls due on
// the way at its due instant.
func (m *sim) advance(d time.Duration) {
	until := m.now.Add(d)
	for {
		if len(m.timers) == 0 || m.timers[0].due.After(until) {
			break
		}
		m.now = m.timers[0].due
		m.fire()
	}
	m.now = until
}

// fire delivers the earliest timer. Timers are armed with the same delay, so
// they fall due in the order they were armed.
func (m *sim) fire() {
	tag := m.timers[0].tag
	m.timers = m.timers[1:]
	m.fired = append(m.fired[max(0, len(m.fired)-7):], tag)
	before := m.s.Status()
	m.send(agent.Tick{Tag: tag})
	after := m.s.Status()
	if before.Pending > 0 && after.Pending == 0 {
		m.lingered++
		if age := m.now.Sub(before.Oldest); age != m.cfg.MaxWait {
			m.fatalf("a linger cut at age %v", age)
		}
	} else {
		m.stale++
	}
}

// act sends one random message.
func (m *sim) act() {
	switch r := m.rng.IntN(100); {
	case r < 45 && m.credits > 0:
		m.post(1 + m.rng.IntN(min(m.credits, 4)))
	case r < 70 && m.running != nil:
		m.complete()
	case r < 80 && m.throttled:
		m.send(agent.Pull{N: 1 + m.rng.IntN(2)})
	case r < 85:
		m.query()
	case r < 95:
		m.junk()
	}
}

func (m *sim) post(n int) {
	items := make([]int, n)
	for i := range items {
		items[i] = len(m.arrived)
		m.arrived = append(m.arrived, m.now)
	}
	m.credits -= n
	m.items += n
	m.send(agent.Input[int]{Items: items})
}

// complete ends the running flush; one in eight fails, some by panicking.
func (m *sim) complete() {
	var err error
	switch m.rng.IntN(16) {
	case 0:
		err = fmt.Errorf("flush %d failed", m.running.ID)
	case 1:
		err = &agent.PanicError{Value: m.running.ID}
	}
	m.send(agent.Done[struct{}]{ID: m.running.ID, Err: err})
}

func (m *sim) query() {
	before := m.s
	fx := m.send(agent.Query{ID: 42})
	want := []agent.Effect{agent.Reply[buffer.Status]{To: 42, Value: before.Status()}}
	if !reflect.DeepEqual(fx, want) || !reflect.DeepEqual(m.s, before) {
		m.fatalf("Query answered %v and changed the state", fx)
	}
}

// junk sends a message that must change nothing: a repeated tick, a Done for
// no running flush, messages of other types, a Pull of nothing.
func (m *sim) junk() {
	msgs := []agent.Msg{
		agent.Done[struct{}]{ID: uint64(len(m.started) + 1)},
		agent.Set[int]{Value: 1},
		agent.Input[string]{Items: []string{"x"}},
		agent.Pull{N: 0},
	}
	for _, tag := range m.fired {
		msgs = append(msgs, agent.Tick{Tag: tag})
	}
	before := m.s
	msg := msgs[m.rng.IntN(len(msgs))]
	if fx := m.send(msg); len(fx) > 0 || !reflect.DeepEqual(m.s, before) {
		m.fatalf("%#v was not ignored: %v", msg, fx)
	}
}

// drain plays the runtime after Close until the agent finishes.
func (m *sim) drain() {
	for range 10000 {
		switch st := m.s.Status(); {
		case m.running != nil:
			m.complete()
		case st.Waiting > 0:
			m.send(agent.Pull{N: 1})
		case len(m.timers) > 0:
			m.advance(m.timers[0].due.Sub(m.now))
		default:
			return
		}
	}
	m.fatalf("the agent did not drain")
}

// send delivers msg at the current instant, checks the effects and the
// invariants, and returns the effects.
func (m *sim) send(msg agent.Msg) []agent.Effect {
	m.messages++
	if p, ok := msg.(agent.Pull); ok && p.N > 0 {
		m.pulled += p.N
	}
	var fx []agent.Effect
	m.s, fx = buffer.Evolve(m.s, agent.Stamp(msg, m.now))
	m.effects(msg, fx)
	m.invariants()
	return fx
}

func (m *sim) effects(msg agent.Msg, fx []agent.Effect) {
	landed := m.land(msg)
	demanded, taken := 0, 0
	for _, e := range fx {
		switch e := e.(type) {
		case agent.Start[[]int]:
			taken += m.start(e)
		case agent.Demand:
			demanded += e.N
		case agent.Emit[[]int]:
			if landed == nil || !reflect.DeepEqual(e.Values, [][]int{landed}) {
				m.fatalf("emitted %v after %#v", e.Values, msg)
			}
			m.emitted = append(m.emitted, landed)
			landed = nil
		case agent.Timer:
			m.arm(e)
		case agent.Disarm:
			m.disarm(e)
		case agent.Finish:
			m.finishes++
			m.finishErr = e.Err
		case agent.Reply[buffer.Status]:
		default:
			m.fatalf("unexpected effect %#v", e)
		}
	}
	if landed != nil {
		m.fatalf("batch %v flushed fine but was not emitted", landed)
	}
	if demanded != taken {
		m.fatalf("gave %d slots back while %d items left the queue", demanded, taken)
	}
	m.credits += demanded
}

// land records the end of the running flush that msg reports, and returns
// the batch if it must be emitted now.
func (m *sim) land(msg agent.Msg) []int {
	d, ok := msg.(agent.Done[struct{}])
	if !ok || m.running == nil || d.ID != m.running.ID {
		return nil
	}
	batch := m.running.Work
	m.running = nil
	m.batches++
	if d.Err == nil {
		return batch
	}
	m.failed = append(m.failed, batch)
	m.tally.failed++
	if m.firstErr == nil {
		m.firstErr = d.Err
	}
	return nil
}

// start checks a flush start and returns how many items it takes.
func (m *sim) start(e agent.Start[[]int]) int {
	if m.running != nil {
		m.fatalf("flush %d started while %d runs", e.ID, m.running.ID)
	}
	if len(e.Work) == 0 || len(e.Work) > m.cfg.Size {
		m.fatalf("batch of %d items, size %d", len(e.Work), m.cfg.Size)
	}
	for i, v := range e.Work {
		if v != m.taken+i {
			m.fatalf("batch %v out of order: expected it to start at %d", e.Work, m.taken)
		}
	}
	m.running = &e
	m.started = append(m.started, e.Work)
	m.taken += len(e.Work)
	return len(e.Work)
}

func (m *sim) arm(e agent.Timer) {
	if m.cfg.MaxWait == 0 || e.Delay != m.cfg.MaxWait {
		m.fatalf("timer of %v with max wait %v", e.Delay, m.cfg.MaxWait)
	}
	m.timers = append(m.timers, timer{tag: e.Tag, due: m.now.Add(e.Delay)})
}

// disarm checks that the timer is pending. Its tick is still delivered: a
// tick already queued when the timer is disarmed may arrive, and must then
// be stale.
func (m *sim) disarm(e agent.Disarm) {
	for _, t := range m.timers {
		if t.tag == e.Tag {
			return
		}
	}
	m.fatalf("disarmed timer %d, which is not pending", e.Tag)
}

// invariants checks what holds between any two messages.
func (m *sim) invariants() {
	st := m.s.Status()
	inFlight := 0
	if m.running != nil {
		inFlight = 1
	}
	switch {
	case st.Queued != len(m.arrived)-m.taken:
		m.fatalf("status says %d queued, %d were", st.Queued, len(m.arrived)-m.taken)
	case st.Queued > st.Queue || m.credits+st.Queued != st.Queue:
		m.fatalf("%d queued and %d slots free with a bound of %d", st.Queued, m.credits, st.Queue)
	case st.Pending >= m.cfg.Size:
		m.fatalf("a full batch was not cut: %d pending", st.Pending)
	case (st.Flushing > 0) != (m.running != nil):
		m.fatalf("status says %d items flushing, running: %v", st.Flushing, m.running)
	case len(m.emitted)+inFlight > m.pulled || st.Demand != m.pulled-len(m.emitted):
		m.fatalf("%d emitted and %d running on %d demand (status %d)", len(m.emitted), inFlight, m.pulled, st.Demand)
	case st.Waiting > 0 && m.running == nil && st.Demand > 0:
		m.fatalf("%d batches wait with demand and no flush running", st.Waiting)
	case m.finishes > 1 || (m.finishes > 0 && !m.closed):
		m.fatalf("%d finishes, closed %v", m.finishes, m.closed)
	}
	m.lingerBound(st)
}

// lingerBound checks that no item of the open batch has waited longer than
// MaxWait.
func (m *sim) lingerBound(st buffer.Status) {
	if st.Pending == 0 {
		return
	}
	oldest := m.arrived[len(m.arrived)-st.Pending]
	if !st.Oldest.Equal(oldest) {
		m.fatalf("status says the oldest pending item came at %v, it came at %v", st.Oldest, oldest)
	}
	if m.cfg.MaxWait > 0 && m.now.Sub(oldest) > m.cfg.MaxWait {
		m.fatalf("an item has waited %v in the open batch", m.now.Sub(oldest))
	}
}

// finalChecks runs once the agent has drained after Close.
func (m *sim) finalChecks() {
	if m.finishes != 1 || !errors.Is(m.finishErr, m.firstErr) || (m.firstErr == nil) != (m.finishErr == nil) {
		m.fatalf("%d finishes with %v, first failure %v", m.finishes, m.finishErr, m.firstErr)
	}
	all := slices.Concat(m.started...)
	if len(all) != len(m.arrived) {
		m.fatalf("%d items accepted, %d flushed", len(m.arrived), len(all))
	}
	if len(m.emitted)+len(m.failed) != len(m.started) {
		m.fatalf("%d batches started, %d emitted, %d failed", len(m.started), len(m.emitted), len(m.failed))
	}
	m.send(agent.Close{})
	m.advance(time.Hour)
	if m.finishes != 1 {
		m.fatalf("Finish came again")
	}
}
