package buffer_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
)

// TestProperties drives Evolve with seeded random sequences, playing the
// runtime's part: the feeder posts only while it holds input slots, items
// weighing from nothing to more than a batch may, the running flush ends
// (sometimes failing), timers tick at their due time, and downstream grants
// demand. After every message it checks what must always hold, among it
// that no batch holds more than Size items nor weighs more than MaxWeight
// unless it is one item, and after Close that everything accepted came out
// once, in order.
func TestProperties(t *testing.T) {
	const sequences, messages = 2000, 200
	var total tally
	for seed := range uint64(sequences) {
		sim := newSim(t, seed)
		sim.run(messages)
		total.add(sim.tally)
	}
	t.Logf("%d sequences x %d messages (+ drain): %d messages, %d items, %d batches (%d cut by linger, %d failed, "+
		"%d at max weight, %d of one item over it, %d holding the whole queue), %d stale ticks, %d unhandled messages",
		sequences, messages, total.messages, total.items, total.batches, total.lingered, total.failed,
		total.heavy, total.alone, total.whole, total.stale, total.unhandled)
	if total.lingered == 0 || total.failed == 0 || total.stale == 0 || total.unhandled == 0 {
		t.Errorf("the sequences never exercised linger, failures, stale ticks or unhandled messages: %+v", total)
	}
	if total.heavy == 0 || total.alone == 0 || total.whole == 0 {
		t.Errorf("the sequences never cut a batch by weight, sent an item over the max weight, or filled the queue: %+v", total)
	}
}

type tally struct {
	messages, items, batches, lingered, failed, stale, unhandled int
	heavy, alone, whole                                          int // batches at MaxWeight, of one item over it, of Queue items
}

func (a *tally) add(b tally) {
	a.messages += b.messages
	a.items += b.items
	a.batches += b.batches
	a.lingered += b.lingered
	a.failed += b.failed
	a.stale += b.stale
	a.unhandled += b.unhandled
	a.heavy += b.heavy
	a.alone += b.alone
	a.whole += b.whole
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
	cfg       buffer.Config[int]
	throttled bool // downstream grants demand a little at a time
	queue     int  // the input bound, defaults filled in

	s       buffer.State[int]
	now     time.Time
	credits int
	arrived []time.Time // arrival instant of item i; items are 0, 1, 2, ...
	weights []int       // weight of item i; 0 for an item posted without one or with a negative one
	timers  []timer     // armed, not yet fired
	fired   []uint64    // tags of the last timers fired
	running *agent.Start[[]int]
	taken   int // items whose flush has started
	over    int // items whose flush has ended

	// The batches the package doc says must be cut, played beside the
	// agent: those cut, and the open one with its weight. live is set
	// while the timer tagged liveTag runs for the open batch.
	want       [][]int
	open       []int
	openWeight int
	live       bool
	liveTag    uint64

	started   [][]int // batches in the order their flush started
	emitted   [][]int
	failed    [][]int
	dead      []int // the items of the batch whose failure is being checked
	deadErr   error // and its error
	pulled    int
	firstErr  error
	closed    bool
	finishes  int
	finishErr error
	tally
}

func newSim(t *testing.T, seed uint64) *sim {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	cfg := buffer.Config[int]{Size: 1 + rng.IntN(8)}
	if rng.IntN(2) == 0 {
		cfg.MaxWeight = 1 + rng.IntN(20)
		cfg.Weight = func(int) int { return 0 } // Evolve gets each weight in its Item
		if rng.IntN(3) == 0 {
			cfg.Size = 0
		}
	}
	if rng.IntN(4) > 0 {
		cfg.MaxWait = time.Duration(1+rng.IntN(50)) * time.Millisecond
	}
	if rng.IntN(2) == 0 {
		cfg.Queue = max(cfg.Size, 1) + rng.IntN(2*max(cfg.Size, 4))
	}
	s, err := buffer.NewState(cfg)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	return &sim{
		t: t, seed: seed, rng: rng, cfg: cfg, throttled: rng.IntN(3) == 0, queue: s.Status().Queue,
		s: s, now: time.Unix(0, 0), credits: s.Status().Queue,
	}
}

func (m *sim) fatalf(format string, args ...any) {
	m.t.Helper()
	m.t.Fatalf("seed %d, message %d, size %d max weight %d max wait %v queue %d: %s",
		m.seed, m.messages, m.cfg.Size, m.cfg.MaxWeight, m.cfg.MaxWait, m.queue, fmt.Sprintf(format, args...))
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
	m.expectCut()
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
	linger := m.live && tag == m.liveTag
	if linger {
		m.live = false
		m.expectCut()
	}
	before := m.s.Status()
	m.send(agent.Tick{Tag: tag})
	after := m.s.Status()
	if before.Pending > 0 && after.Pending == 0 != linger {
		m.fatalf("Tick %d: %d items pending before, %d after; the open batch's timer: %v", tag, before.Pending, after.Pending, linger)
	}
	if linger {
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

// post sends n items: plain ones, which weigh nothing, or Items with a
// weight, mostly when batches are cut by weight.
func (m *sim) post(n int) {
	plain := m.rng.IntN(5) == 0
	if m.cfg.MaxWeight == 0 {
		plain = m.rng.IntN(5) > 0
	}
	items := make([]buffer.Item[int], n)
	for i := range items {
		items[i] = buffer.Item[int]{Value: len(m.arrived)}
		if !plain {
			items[i].Weight = m.weight()
		}
		m.arrived = append(m.arrived, m.now)
		m.weights = append(m.weights, max(items[i].Weight, 0)) // a negative weight counts as 0
		m.expectItem(items[i].Value)
	}
	m.credits -= n
	m.items += n
	if !plain {
		m.send(agent.Input[buffer.Item[int]]{Items: items})
		return
	}
	values := make([]int, n)
	for i, it := range items {
		values[i] = it.Value
	}
	m.send(agent.Input[int]{Items: values})
}

// expectItem adds item v to the open batch as the package doc says: with
// MaxWeight, the open batch is cut first if v would take it over; a batch
// is cut once it holds Size items (Queue items without Size) or weighs
// MaxWeight.
func (m *sim) expectItem(v int) {
	w := m.weights[v]
	if m.cfg.MaxWeight > 0 && len(m.open) > 0 && w > m.cfg.MaxWeight-m.openWeight {
		m.expectCut()
	}
	m.open = append(m.open, v)
	m.openWeight += w
	most := m.cfg.Size
	if most == 0 {
		most = m.queue
	}
	if len(m.open) == most || m.cfg.MaxWeight > 0 && m.openWeight >= m.cfg.MaxWeight {
		m.expectCut()
	}
}

// expectCut cuts the open batch, if it holds anything.
func (m *sim) expectCut() {
	if len(m.open) > 0 {
		m.want = append(m.want, m.open)
		m.open, m.openWeight = nil, 0
	}
}

// weight picks an item's weight: often nothing or a little, sometimes the
// max weight or more, rarely less than nothing or the largest int.
func (m *sim) weight() int {
	most := max(m.cfg.MaxWeight, 8)
	switch r := m.rng.IntN(100); {
	case r < 2:
		return -1 - m.rng.IntN(most)
	case r < 15:
		return 0
	case r < 75:
		return 1 + m.rng.IntN(max(most/3, 1))
	case r < 90:
		return m.rng.IntN(most + 1)
	case r < 99:
		return most + m.rng.IntN(most)
	}
	if m.cfg.MaxWeight == 0 {
		return most // weights add up in Status.Weight: keep them small
	}
	return math.MaxInt
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
// no running flush, a Pull of nothing; or one of a type the agent does not
// take, which it must report as Unhandled.
func (m *sim) junk() {
	if m.rng.IntN(3) == 0 {
		m.unhandled()
		return
	}
	msgs := []agent.Msg{
		agent.Done[struct{}]{ID: uint64(len(m.started) + 1)},
		agent.Pull{N: 0},
		agent.Pull{N: -1},
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

// unhandled hands Evolve a message of a type it does not take. The runtime
// would fail the agent, so nothing is performed: the state must be the same
// and the one effect Unhandled.
func (m *sim) unhandled() {
	msgs := []agent.Msg{
		agent.Set[int]{Value: 1},
		agent.Input[string]{Items: []string{"x"}},
		agent.Done[int]{ID: uint64(len(m.started))},
	}
	msg := msgs[m.rng.IntN(len(msgs))]
	m.messages++
	m.tally.unhandled++
	next, fx := buffer.Evolve(m.s, agent.Stamp(msg, m.now))
	if !reflect.DeepEqual(fx, []agent.Effect{agent.Unhandled{}}) || !reflect.DeepEqual(next, m.s) {
		m.fatalf("%#v: got %v, want Unhandled alone and no change", msg, fx)
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
	ok := m.ended(msg)
	demanded, taken := 0, 0
	for _, e := range fx {
		switch e := e.(type) {
		case agent.Start[[]int]:
			taken += m.start(e)
		case agent.Demand:
			demanded += e.N
		case agent.Emit[[]int]:
			if ok == nil || !reflect.DeepEqual(e.Values, [][]int{ok}) {
				m.fatalf("emitted %v after %#v", e.Values, msg)
			}
			m.emitted = append(m.emitted, ok)
			ok = nil
		case agent.Timer:
			m.arm(e)
		case agent.Disarm:
			m.disarm(e)
		case agent.Finish:
			m.finishes++
			m.finishErr = e.Err
		case agent.Reply[buffer.Status]:
		case agent.DeadLetter:
			if len(m.dead) == 0 || e.Item != any(m.dead[0]) || e.Seq != uint64(m.dead[0]) || e.Err != m.deadErr || e.Attempts != 1 {
				m.fatalf("dead letter %+v, want item %v of the failed batch, with %v", e, m.dead, m.deadErr)
			}
			m.dead = m.dead[1:]
		default:
			m.fatalf("unexpected effect %#v", e)
		}
	}
	if len(m.dead) > 0 {
		m.fatalf("the items %v of a failed batch did not go to the dead letters", m.dead)
	}
	if ok != nil {
		m.fatalf("batch %v flushed fine but was not emitted", ok)
	}
	if demanded != taken {
		m.fatalf("gave %d slots back while %d items left the queue", demanded, taken)
	}
	m.credits += demanded
}

// ended records the end of the running flush that msg reports, and returns
// the batch if it must be emitted now.
func (m *sim) ended(msg agent.Msg) []int {
	d, ok := msg.(agent.Done[struct{}])
	if !ok || m.running == nil || d.ID != m.running.ID {
		return nil
	}
	batch := m.running.Work
	m.running = nil
	m.batches++
	m.over += len(batch)
	if d.Err == nil {
		return batch
	}
	m.failed = append(m.failed, batch)
	m.dead, m.deadErr = batch, d.Err
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
	if len(e.Work) == 0 || m.cfg.Size > 0 && len(e.Work) > m.cfg.Size || len(e.Work) > m.queue {
		m.fatalf("batch of %d items, size %d", len(e.Work), m.cfg.Size)
	}
	for i, v := range e.Work {
		if v != m.taken+i {
			m.fatalf("batch %v out of order: expected it to start at %d", e.Work, m.taken)
		}
	}
	if k := len(m.started); k >= len(m.want) || !slices.Equal(e.Work, m.want[k]) {
		m.fatalf("batch %d started as %v; the batches cut should be %v", k, e.Work, m.want)
	}
	m.weighBatch(e.Work)
	m.running = &e
	m.started = append(m.started, e.Work)
	m.taken += len(e.Work)
	return len(e.Work)
}

// weighBatch checks that a batch of more than one item weighs no more than
// MaxWeight, and counts the batches cut by weight.
func (m *sim) weighBatch(batch []int) {
	if m.cfg.MaxWeight == 0 {
		return
	}
	if len(batch) == 1 {
		if m.weights[batch[0]] > m.cfg.MaxWeight {
			m.alone++
		}
		return
	}
	if len(batch) == m.queue && m.cfg.Size == 0 {
		m.whole++
	}
	w := 0
	for _, v := range batch {
		if m.weights[v] > m.cfg.MaxWeight {
			m.fatalf("item %d weighing %d in batch %v", v, m.weights[v], batch)
		}
		w += m.weights[v] // no overflow: each is at most MaxWeight
	}
	if w > m.cfg.MaxWeight {
		m.fatalf("batch %v weighs %d", batch, w)
	}
	if w == m.cfg.MaxWeight {
		m.heavy++
	}
}

func (m *sim) arm(e agent.Timer) {
	if m.cfg.MaxWait == 0 || e.Delay != m.cfg.MaxWait {
		m.fatalf("timer of %v with max wait %v", e.Delay, m.cfg.MaxWait)
	}
	if m.live || len(m.open) == 0 {
		m.fatalf("timer %d armed while timer %d runs (%v), for %d items", e.Tag, m.liveTag, m.live, len(m.open))
	}
	m.live, m.liveTag = true, e.Tag
	m.timers = append(m.timers, timer{tag: e.Tag, due: m.now.Add(e.Delay)})
}

// disarm checks that the timer is pending. Its tick is still delivered: a
// tick already queued when the timer is disarmed may arrive, and must then
// be stale.
func (m *sim) disarm(e agent.Disarm) {
	if m.live && e.Tag == m.liveTag {
		m.live = false
	}
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
	case st.Pending != len(m.open):
		m.fatalf("%d items pending, the open batch should hold %v", st.Pending, m.open)
	case m.live && st.Pending == 0 || m.cfg.MaxWait > 0 && st.Pending > 0 && !m.live:
		m.fatalf("%d items pending, a timer running: %v", st.Pending, m.live)
	case m.cfg.Size > 0 && st.Pending >= m.cfg.Size || st.Pending >= m.queue:
		m.fatalf("a full batch was not cut: %d pending", st.Pending)
	case m.cfg.MaxWeight > 0 && st.Weight >= m.cfg.MaxWeight:
		m.fatalf("a batch at its max weight was not cut: it weighs %d", st.Weight)
	case st.Weight != m.pendingWeight(st.Pending):
		m.fatalf("status says the open batch weighs %d, its items weigh %d", st.Weight, m.pendingWeight(st.Pending))
	case st.Size != m.cfg.Size || st.MaxWeight != m.cfg.MaxWeight || st.Queue != m.queue:
		m.fatalf("status says size %d max weight %d queue %d", st.Size, st.MaxWeight, st.Queue)
	case m.running == nil && st.InFlight != 0 || m.running != nil && st.InFlight != len(m.running.Work):
		m.fatalf("status says %d items flushing, running: %v", st.InFlight, m.running)
	case st.Done != m.over || st.Failed != len(slices.Concat(m.failed...)):
		m.fatalf("status says %d items done and %d failed; %d ended, %d failed", st.Done, st.Failed, m.over, len(slices.Concat(m.failed...)))
	case st.Flushed != len(m.emitted) || st.FailedBatches != len(m.failed):
		m.fatalf("status says %d batches flushed and %d failed; %d were, %d failed", st.Flushed, st.FailedBatches, len(m.emitted), len(m.failed))
	case len(m.emitted)+inFlight > m.pulled || int(st.Demand) != m.pulled-len(m.emitted):
		m.fatalf("%d emitted and %d running on %d demand (status %d)", len(m.emitted), inFlight, m.pulled, st.Demand)
	case st.Waiting > 0 && m.running == nil && st.Demand > 0:
		m.fatalf("%d batches wait with demand and no flush running", st.Waiting)
	case m.finishes > 1 || (m.finishes > 0 && !m.closed):
		m.fatalf("%d finishes, closed %v", m.finishes, m.closed)
	}
	m.lingerBound(st)
}

// pendingWeight returns what the last n items that arrived weigh.
func (m *sim) pendingWeight(n int) int {
	w := 0
	for _, x := range m.weights[len(m.weights)-n:] {
		w += x
	}
	return w
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
	if !reflect.DeepEqual(m.started, m.want) {
		m.fatalf("batches %v, should be %v", m.started, m.want)
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
