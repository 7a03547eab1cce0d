package book

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/remote/internal/census"
	"github.com/evolvekit/evolve/remote/internal/want"
)

// TestRandomSequencesKeepEveryPromise drives evolve with seeded random
// message sequences the way the master's runtime and node would: a feeder
// that posts only within the input slots it holds, demand granted a little
// at a time, workers that join with random slots and tags, ask only for the
// slots they really have free and the prefetch granted, send results
// (successes, failures, and the duplicates and late results of workers taken
// for dead), die and leave handing some items back, a clock that moves so
// leases expire and tags give up waiting, the Ticks of the timers the master
// armed and stale ones, queries and noise; then it closes and drains with a
// worker that has every tag. A model of the master, fed the same messages
// and the dispatches the master chose, predicts every count, where every
// item is, when each lease starts (at once, or once a slot frees for an item
// that waits on its worker), the slots hung, the timers and the input slots;
// after every message the master's Snapshot, effects and timers are checked
// against it, and that it dispatched and emitted all it could. Every fourth
// message is also evolved on a Clone, which must answer the same. Every
// other sequence runs a book with Config.Drain, which says how many
// workers each tag wants: after every message its counts of each tag's
// items queued, leased and waiting for a retry must be the model's, and it
// must want a worker at least while a tag has items queued or leased, and
// none once the tag has none and is idle (closed, or no item came for the
// rate window and a want timer's step).
func TestRandomSequencesKeepEveryPromise(t *testing.T) {
	const sequences, steps = 300, 300
	var sum msim
	for seed := range uint64(sequences) {
		m := newMsim(t, seed)
		for range steps {
			m.randomStep()
		}
		m.drain()
		m.checkEnd()
		sum.delivered += m.delivered
		sum.items = append(sum.items, m.items...)
		sum.dispatched += m.dispatched
		sum.requeued += m.requeued
		sum.retried += m.retried
		sum.duplicates += m.duplicates
		sum.failedN += m.failedN
		sum.hung += m.hung
		sum.waited += m.waited
		if t.Failed() {
			return
		}
	}
	why := map[error]int{}
	for _, it := range sum.items {
		if it.result.Err != nil {
			why[it.why]++
		}
	}
	t.Logf("%d sequences x %d random steps, then close and drain: %d messages, %d items, %d tasks dispatched, "+
		"%d requeued, %d retried, %d duplicates, %d hung, %d waited for a slot; %d items failed: %d by the work, %d lost, %d leases expired, %d no worker",
		sequences, steps, sum.delivered, len(sum.items), sum.dispatched, sum.requeued, sum.retried, sum.duplicates, sum.hung, sum.waited,
		sum.failedN, why[nil], why[ErrWorkerLost], why[ErrLeaseExpired], why[ErrNoWorker])
}

// The phases of an item, in the model.
const (
	simQueued = iota
	simLeased
	simHeld
	simEmitted
)

// simItem is what the model knows of one accepted item.
type simItem struct {
	seq        uint64
	tag        string
	phase      int
	holder     WorkerID
	prev       WorkerID  // the holder of the attempt before the last
	attempt    int       // the last attempt dispatched
	dispatchAt time.Time // of the last attempt
	order      int       // the dispatch number of the last attempt
	started    bool      // leased, and its lease runs: it does not wait for a slot
	leaseAt    time.Time // when its lease started
	startNo    int       // the number of its lease's start, for the order of leases
	failures   int
	slot       bool
	result     Result[int]
	why        error // the sentinel of a failure not the work's, or nil
	concluded  int   // the message that concluded it
	workErrs   map[int]error
}

// simWorker is a worker process, honest, and what the model expects the
// master to know of it.
type simWorker struct {
	id         WorkerID
	addr       string
	slots      int
	tags       []string
	registered bool
	gone       bool
	credit     int      // slots asked for and not filled: the master's Free
	holding    []holdup // tasks it received and has not answered nor handed back
	queue      []holdup // the tasks leased to it waiting for a slot, oldest first
	hung       []holdup // the tasks it holds whose lease expired
	heard      time.Time
	done       int
	failed     int
}

// holdup is a task a worker holds.
type holdup struct {
	seq     uint64
	attempt int
}

// sentOutcome is a result a worker sent, kept to send it again.
type sentOutcome struct {
	worker WorkerID
	o      Outcome[int]
}

// msim is the harness and the model.
type msim struct {
	t    *testing.T
	seed uint64
	r    *rand.Rand
	s    *Book[int, int, Result[int]]

	queue, window, maxBatch, maxAttempts int
	prefetch                             int // granted to each worker
	unordered                            bool
	lease, tagWait                       time.Duration
	tagged                               bool

	now        time.Time
	delivered  int
	credits    int
	items      []*simItem
	workers    []*simWorker // by ID - 1
	history    []sentOutcome
	demand     int
	emittedN   int
	closed     bool
	finishes   int
	timers     [3]simTimer // by tag
	gauging    bool        // the book has Config.Drain
	wantTimer  simTimer
	arrived    map[string]time.Time // the last arrival, by tag
	stuck      map[string]time.Time
	barred     map[string]bool // tags whose items gave up, none of whose workers may take items since
	back       int             // input slots the message must give back
	last       agent.Msg
	dispatches int

	requeued, retried, duplicates, refused, failedN, dispatched int
	hung, waited                                                int // leases expired on a registered worker; tasks that waited for a slot
	starts                                                      int // leases started
	deadN                                                       int // the dead letters seen
}

// simTimer is a timer the runtime holds for the master.
type simTimer struct {
	on  bool
	due time.Time
}

// tagNames are the tags of items by their value modulo 4.
var tagNames = [4]string{"", "", "a", "b"}

func newMsim(t *testing.T, seed uint64) *msim {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	cfg := options[int]{
		Queue:       1 + r.IntN(8),
		Window:      1 + r.IntN(10),
		MaxBatch:    1 + r.IntN(3),
		MaxAttempts: 1 + r.IntN(3),
		Unordered:   r.IntN(2) == 0,
		Lease:       10 * time.Second,
		TagWait:     time.Duration(3+r.IntN(12)) * time.Second,
		MaxPrefetch: []int{NoPrefetch, 0, 1, 3}[r.IntN(4)],
	}
	if r.IntN(5) == 0 {
		cfg.Window = 0 // the default
	}
	if r.IntN(4) > 0 {
		cfg.Tag = func(v int) string { return tagNames[v%4] }
	}
	if seed%2 == 1 {
		cfg.Drain = 30 * time.Second
	}
	s, err := newBook[int, int](cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.silence = 0 // the model knows no heartbeat: heartbeat_test.go tests the silence rule
	m := &msim{
		t: t, seed: seed, r: r, s: s, now: agenttest.T0,
		queue: cfg.Queue, window: cfg.Window, maxBatch: cfg.MaxBatch, maxAttempts: cfg.MaxAttempts,
		prefetch: grantOf(cfg.MaxPrefetch), unordered: cfg.Unordered, lease: cfg.Lease, tagWait: cfg.TagWait,
		tagged: cfg.Tag != nil, credits: cfg.Queue, stuck: map[string]time.Time{}, barred: map[string]bool{},
		gauging: cfg.Drain > 0, arrived: map[string]time.Time{},
	}
	if m.window == 0 {
		m.window = DefaultWindow
	}
	if r.IntN(3) == 0 {
		m.deliver(agent.Pull{N: 1 + r.IntN(4)})
	} else {
		m.deliver(agent.Pull{N: agent.Unbounded})
	}
	return m
}

// randomStep does one thing picked at random.
func (m *msim) randomStep() {
	switch k := m.r.IntN(1000); {
	case k < 200:
		m.post()
	case k < 270:
		m.deliver(agent.Pull{N: 1 + m.r.IntN(4)})
	case k < 320:
		m.join(m.randomTags(), 1+m.r.IntN(4))
	case k < 480:
		m.ask(m.registered(), false)
	case k < 700:
		m.answer(m.holder(), 1+m.r.IntN(3), false)
	case k < 730:
		m.resend()
	case k < 745:
		m.lose(m.registered())
	case k < 760:
		m.leave(m.registered())
	case k < 900:
		m.advance(time.Duration(m.r.IntN(3000)) * time.Millisecond)
	case k < 930:
		m.staleTick()
	case k < 950:
		m.query()
	case k < 998:
		m.noise()
	default:
		if !m.closed {
			m.deliver(agent.Close{})
		}
	}
}

// post sends up to three items, within the input slots the feeder holds,
// unless the input is closed.
func (m *msim) post() {
	if m.closed || m.credits == 0 {
		return
	}
	n := 1 + m.r.IntN(min(m.credits, 3))
	vs := make([]int, n)
	for i := range vs {
		vs[i] = len(m.items)*4 + m.r.IntN(4)
		tag := ""
		if m.tagged {
			tag = tagNames[vs[i]%4]
		}
		m.items = append(m.items, &simItem{seq: uint64(len(m.items)), tag: tag, slot: true, workErrs: map[int]error{}})
		m.arrived[tag] = m.now
	}
	m.credits -= n
	m.deliver(agent.Input[int]{Items: vs})
}

// randomTags returns a random set of the tags items may need.
func (m *msim) randomTags() []string {
	var tags []string
	for _, t := range []string{"a", "b"} {
		if m.r.IntN(2) == 0 {
			tags = append(tags, t)
		}
	}
	return tags
}

// join registers a new worker, unless five are registered already.
func (m *msim) join(tags []string, slots int) *simWorker {
	if len(m.alive()) >= 5 {
		return nil
	}
	id := WorkerID(len(m.workers) + 1)
	w := &simWorker{id: id, addr: fmt.Sprint("w", id), slots: slots, tags: tags, registered: true}
	m.workers = append(m.workers, w)
	m.deliver(agent.Event[Joined]{Value: Joined{Worker: w.id, Addr: w.addr, Slots: slots, Tags: tags}})
	return w
}

// alive returns the registered workers.
func (m *msim) alive() []*simWorker {
	var ws []*simWorker
	for _, w := range m.workers {
		if w.registered {
			ws = append(ws, w)
		}
	}
	return ws
}

// registered returns a random registered worker, or nil.
func (m *msim) registered() *simWorker {
	ws := m.alive()
	if len(ws) == 0 {
		return nil
	}
	return ws[m.r.IntN(len(ws))]
}

// holder returns a random worker that holds tasks, registered or not, or
// nil.
func (m *msim) holder() *simWorker {
	var ws []*simWorker
	for _, w := range m.workers {
		if len(w.holding) > 0 {
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 {
		return nil
	}
	return ws[m.r.IntN(len(ws))]
}

// ask has w ask for some of the slots it really has free, or all of them.
func (m *msim) ask(w *simWorker, all bool) {
	if w == nil {
		return
	}
	spare := m.spare(w)
	if spare <= 0 {
		return
	}
	n := spare
	if !all {
		n = 1 + m.r.IntN(spare)
	}
	m.deliver(agent.Event[Asked]{Value: Asked{Worker: w.id, N: n}})
}

// answer has w send the results of up to n of the tasks it holds: one in
// five a failure, unless ok.
func (m *msim) answer(w *simWorker, n int, ok bool) {
	if w == nil {
		return
	}
	var outs []Outcome[int]
	for range min(n, len(w.holding)) {
		i := m.r.IntN(len(w.holding))
		h := w.holding[i]
		w.holding = slices.Delete(w.holding, i, i+1)
		o := Outcome[int]{Item: h.seq, Attempt: h.attempt, Value: int(h.seq)*100 + h.attempt}
		if !ok && m.r.IntN(5) == 0 {
			o = Outcome[int]{Item: h.seq, Attempt: h.attempt, Err: fmt.Errorf("item %d attempt %d on worker %d failed", h.seq, h.attempt, w.id)}
			m.items[h.seq].workErrs[h.attempt] = o.Err
		}
		outs = append(outs, o)
		m.history = append(m.history, sentOutcome{worker: w.id, o: o})
	}
	// Half the time the worker asks for its free slots in the same message.
	more := 0
	if spare := m.spare(w); spare > 0 && m.r.IntN(2) == 0 {
		more = spare
	}
	m.deliver(agent.Event[Outcomes[int]]{Value: Outcomes[int]{Worker: w.id, Outcomes: outs, Asked: more}})
}

// resend sends a result again, as a duplicate.
func (m *msim) resend() {
	if len(m.history) == 0 {
		return
	}
	h := m.history[m.r.IntN(len(m.history))]
	m.deliver(agent.Event[Outcomes[int]]{Value: Outcomes[int]{Worker: h.worker, Outcomes: []Outcome[int]{h.o}}})
}

// lose has w die. Its tasks may still answer, late.
func (m *msim) lose(w *simWorker) {
	if w == nil {
		return
	}
	m.deliver(agent.Event[Lost]{Value: Lost{Worker: w.id}})
}

// leave has w leave, handing some of its tasks back; it may still answer
// the others.
func (m *msim) leave(w *simWorker) {
	if w == nil {
		return
	}
	var handed []uint64
	kept := w.holding[:0]
	for _, h := range w.holding {
		if m.r.IntN(2) == 0 || slices.Contains(handed, h.seq) {
			handed = append(handed, h.seq)
			continue
		}
		kept = append(kept, h)
	}
	w.holding = slices.DeleteFunc(kept, func(h holdup) bool { return slices.Contains(handed, h.seq) })
	m.deliver(agent.Event[Left]{Value: Left{Worker: w.id, Handed: handed}})
}

// advance moves the clock by d, then delivers the Ticks of the timers due
// by then, earliest first, as the runtime would.
func (m *msim) advance(d time.Duration) {
	m.now = m.now.Add(d)
	for range 10 {
		tag := uint64(0)
		for k := uint64(1); k <= 2; k++ {
			if t := m.timers[k]; t.on && !t.due.After(m.now) && (tag == 0 || t.due.Before(m.timers[tag].due)) {
				tag = k
			}
		}
		if w := m.wantTimer; w.on && !w.due.After(m.now) && (tag == 0 || w.due.Before(m.timers[tag].due)) {
			m.wantTimer.on = false
			m.deliver(agent.Tick{Tag: wantTimer})
			continue
		}
		if tag == 0 {
			return
		}
		m.timers[tag].on = false
		m.deliver(agent.Tick{Tag: tag})
	}
	m.fail("the timers keep firing at %v", m.now)
}

// staleTick delivers a Tick the runtime would have dropped: of a timer
// replaced or disarmed, or of a tag the master never armed.
func (m *msim) staleTick() {
	tag := uint64(1 + m.r.IntN(3))
	if tag == 3 {
		m.ignored(agent.Tick{Tag: 40 + tag})
		return
	}
	m.deliver(agent.Tick{Tag: tag})
}

// query checks that a Query is answered with the Status and changes
// nothing.
func (m *msim) query() {
	id := m.r.Uint64()
	want := m.s.Snapshot()
	fx := m.deliver(agent.Query{ID: id})
	if !reflect.DeepEqual(fx, []agent.Effect{agent.Reply[census.Snapshot]{To: id, Value: want}}) {
		m.fail("query answered with %v, want %v", fx, want)
	}
}

// noise sends what the master must ignore, or report unhandled.
func (m *msim) noise() {
	wrong := []agent.Msg{
		agent.Set[int]{Value: 4},
		agent.Done[int]{ID: 0},
		agent.Input[string]{Items: []string{"x"}},
		agent.Event[Outcomes[string]]{},
		agent.Event[Dispatch[int]]{},
	}
	unknown := WorkerID(len(m.workers) + 7)
	ignored := []agent.Msg{
		agent.Pull{N: -m.r.IntN(2)},
		agent.Event[Asked]{Value: Asked{Worker: unknown, N: 1}},
		agent.Event[Lost]{Value: Lost{Worker: unknown}},
		agent.Event[Left]{Value: Left{Worker: unknown, Handed: []uint64{0}}},
	}
	for _, w := range m.workers {
		if w.gone {
			ignored = append(ignored,
				agent.Event[Asked]{Value: Asked{Worker: w.id, N: 1}},
				agent.Event[Lost]{Value: Lost{Worker: w.id}},
				agent.Event[Left]{Value: Left{Worker: w.id}})
		}
	}
	if w := m.registered(); w != nil {
		ignored = append(ignored, agent.Event[Joined]{Value: Joined{Worker: w.id, Slots: 9, Tags: []string{"a"}}})
	}
	if m.r.IntN(3) == 0 {
		m.unhandled(wrong[m.r.IntN(len(wrong))])
		return
	}
	m.ignored(ignored[m.r.IntN(len(ignored))])
}

// ignored delivers msg and checks that it had no effect and changed
// nothing.
func (m *msim) ignored(msg agent.Msg) {
	before := bookkeeping(m.s)
	if fx := m.deliver(msg); len(fx) > 0 || !reflect.DeepEqual(before, bookkeeping(m.s)) {
		m.fail("%#v was not ignored: %v", msg, fx)
	}
}

// unhandled delivers msg and checks that evolve answered Unhandled alone
// and changed nothing.
func (m *msim) unhandled(msg agent.Msg) {
	before := bookkeeping(m.s)
	if fx := m.deliver(msg); !reflect.DeepEqual(fx, []agent.Effect{agent.Unhandled{}}) || !reflect.DeepEqual(before, bookkeeping(m.s)) {
		m.fail("%#v was not reported unhandled: %v", msg, fx)
	}
}

// drain closes the input, registers a worker with every tag, and answers
// everything with successes, granting demand and moving the clock, until
// the master finishes.
func (m *msim) drain() {
	if !m.closed {
		m.deliver(agent.Close{})
	}
	for range 2000 {
		if m.finishes > 0 {
			return
		}
		if !slices.ContainsFunc(m.alive(), func(w *simWorker) bool { return len(w.tags) == 2 }) {
			if len(m.alive()) >= 5 {
				m.lose(m.registered())
			}
			m.join([]string{"a", "b"}, 4)
		}
		if m.demand < 4 {
			m.deliver(agent.Pull{N: 1 + m.r.IntN(8)})
		}
		if w := m.holder(); w != nil {
			m.answer(w, len(w.holding), m.r.IntN(3) > 0)
		}
		for _, w := range m.alive() {
			m.ask(w, true)
		}
		m.advance(time.Duration(m.r.IntN(3000)) * time.Millisecond)
	}
	m.fail("the master never finished: %+v, closed %v, timers %+v, items %d, emitted %d", m.s.Snapshot(), m.closed, m.timers, len(m.items), m.emittedN)
}

// deliver evolves the state with msg, stamped with the clock, and every
// fourth time a Clone of it too, which must answer the same; then it checks the effects
// against the model, updates it, and checks the invariants.
func (m *msim) deliver(msg agent.Msg) []agent.Effect {
	msg = agent.Stamp(msg, m.now)
	m.last = msg
	var twin *Book[int, int, Result[int]]
	cloned := m.delivered%4 == 0
	if cloned {
		twin = m.s.Clone()
	}
	var fx []agent.Effect
	m.s, fx = evolve(m.s, msg)
	if cloned {
		twin, fx2 := evolve(twin, msg)
		if !sameEffects(fx, fx2) || !reflect.DeepEqual(m.s.Snapshot(), twin.Snapshot()) {
			m.fail("a Clone evolved with %#v answered %v, not %v", msg, fx2, fx)
		}
	}
	m.delivered++
	if _, ok := msg.(agent.Query); ok {
		return fx // query checks the Reply
	}
	if m.finishes > 0 {
		if !slices.Equal(fx, []agent.Effect{agent.Unhandled{}}) && len(fx) > 0 {
			m.fail("%#v after Finish had effects %v", msg, fx)
		}
		return fx
	}
	if slices.Contains(fx, agent.Effect(agent.Unhandled{})) {
		if handled(msg) {
			m.fail("%#v reported unhandled", msg)
		}
		return fx
	}
	m.back = 0
	m.expect(msg)
	m.refuse()
	m.effects(fx)
	m.watch()
	m.checkTimers()
	m.invariants()
	return fx
}

// handled reports whether msg is of a type the master takes.
func handled(msg agent.Msg) bool {
	switch msg.(type) {
	case agent.Pull, agent.Input[int], agent.Close, agent.Tick, agent.Query,
		agent.Event[Joined], agent.Event[Asked], agent.Event[Outcomes[int]],
		agent.Event[Left], agent.Event[Lost]:
		return true
	}
	return false
}

// expect makes the model do what msg asks, up to the dispatching.
func (m *msim) expect(msg agent.Msg) {
	switch msg := msg.(type) {
	case agent.Pull:
		if msg.N > 0 {
			m.demand += min(msg.N, agent.Unbounded-m.demand)
		}
	case agent.Close:
		m.closed = true
	case agent.Tick:
		switch msg.Tag {
		case leaseTimer:
			m.expire()
		case tagWaitTimer:
			m.giveUp()
		}
	case agent.Event[Joined]:
		if w := m.worker(msg.Value.Worker); w != nil && !w.gone {
			w.registered = true
		}
	case agent.Event[Asked]:
		if w := m.worker(msg.Value.Worker); w != nil && w.registered && msg.Value.N > 0 {
			w.credit += msg.Value.N
			w.heard = m.now
		}
	case agent.Event[Outcomes[int]]:
		w := m.worker(msg.Value.Worker)
		if w != nil && w.registered {
			w.heard = m.now
		}
		for _, o := range msg.Value.Outcomes {
			hung := w != nil && w.registered && m.unhang(w, o)
			freed := hung || w != nil && w.registered && m.leasedTo(w, o)
			m.outcome(msg.Value.Worker, w, o, hung)
			if freed {
				m.start(w)
			}
		}
		if w != nil && w.registered && msg.Value.Asked > 0 {
			w.credit += msg.Value.Asked
		}
	case agent.Event[Left]:
		if w := m.worker(msg.Value.Worker); w != nil && w.registered {
			for _, it := range m.items {
				if it.phase == simLeased && it.holder == w.id {
					m.unlease(it)
					it.phase = simQueued
					m.requeued++
				}
			}
			w.registered, w.gone = false, true
		}
	case agent.Event[Lost]:
		if w := m.worker(msg.Value.Worker); w != nil && w.registered {
			for _, it := range m.items {
				if it.phase == simLeased && it.holder == w.id {
					started := it.started
					m.unlease(it)
					if !started {
						it.phase = simQueued // it never started: no attempt spent
						m.requeued++
						continue
					}
					m.failAttempt(it, ErrWorkerLost, true)
				}
			}
			w.registered, w.gone = false, true
		}
	}
}

// outcome is the model's rule for one result from worker from (w, nil if
// never known): a success counts only from the worker of the item's last
// attempt or the one before, or one that held the attempt hung.
func (m *msim) outcome(from WorkerID, w *simWorker, o Outcome[int], hung bool) {
	it := m.item(o.Item)
	if it == nil || it.phase >= simHeld {
		m.duplicates++
		return
	}
	if o.Err == nil && !hung && (it.attempt == 0 || (from != it.holder && (it.attempt == 1 || from != it.prev))) {
		m.refused++
		return
	}
	if o.Err == nil {
		if it.phase == simQueued {
			m.leaveLine(it)
		}
		m.unlease(it)
		m.conclude(it, Result[int]{Seq: it.seq, Value: o.Value}, nil)
		if w != nil && w.registered {
			w.done++
		}
		return
	}
	if it.phase != simLeased || w == nil || it.holder != w.id || it.attempt != o.Attempt {
		m.duplicates++
		return
	}
	if w.registered {
		w.failed++
	}
	m.unlease(it)
	if m.failAttempt(it, nil, false) {
		m.retried++
	}
}

// failAttempt counts a failed attempt at it, leased until now: it is
// requeued, or fails for good with its last error (the work's if why is
// nil). Requeues are counted if lost. It reports whether it was requeued.
func (m *msim) failAttempt(it *simItem, why error, lost bool) bool {
	it.failures++
	if it.failures >= m.maxAttempts {
		m.conclude(it, Result[int]{Seq: it.seq, Err: it.workErrs[it.attempt]}, why)
		return false
	}
	it.phase = simQueued
	if lost {
		m.requeued++
	}
	return true
}

// expire is the model's lease timer: every item whose lease started the
// lease's length ago is taken back, and its worker keeps it hung and
// starts the lease of the oldest task waiting for one of its slots.
func (m *msim) expire() {
	var due []*simItem
	for _, it := range m.items {
		if it.phase == simLeased && it.started && !it.leaseAt.Add(m.lease).After(m.now) {
			due = append(due, it)
		}
	}
	slices.SortFunc(due, func(a, b *simItem) int { return a.startNo - b.startNo })
	for _, it := range due {
		w := m.worker(it.holder)
		silent := !w.heard.After(it.leaseAt)
		m.unlease(it)
		if w.registered {
			w.failed++
			w.hung = append(w.hung, holdup{seq: it.seq, attempt: it.attempt})
			m.hung++
			if silent {
				m.reclaim(w)
			} else {
				m.start(w)
			}
		}
		m.failAttempt(it, ErrLeaseExpired, true)
	}
}

// reclaim takes back every task waiting for a slot of w, a worker silent
// for a whole lease: each is requeued, with no attempt spent, and held
// hung.
func (m *msim) reclaim(w *simWorker) {
	for _, h := range w.queue {
		it := m.items[h.seq]
		w.hung = append(w.hung, h)
		it.phase = simQueued
		m.requeued++
	}
	w.queue = nil
}

// unlease notes that the leased it is taken from its worker: its lease
// ends, or it no longer waits for a slot there.
func (m *msim) unlease(it *simItem) {
	if it.phase != simLeased {
		return
	}
	if !it.started {
		w := m.worker(it.holder)
		w.queue = slices.DeleteFunc(w.queue, func(h holdup) bool { return h.seq == it.seq && h.attempt == it.attempt })
	}
	it.started = false
}

// unhang reports whether the attempt o is the outcome of was hung on w,
// and forgets it.
func (m *msim) unhang(w *simWorker, o Outcome[int]) bool {
	i := slices.Index(w.hung, holdup{seq: o.Item, attempt: o.Attempt})
	if i >= 0 {
		w.hung = slices.Delete(w.hung, i, i+1)
	}
	return i >= 0
}

// leasedTo reports whether the attempt o is the outcome of is leased to w.
func (m *msim) leasedTo(w *simWorker, o Outcome[int]) bool {
	it := m.item(o.Item)
	return it != nil && it.phase == simLeased && it.holder == w.id && it.attempt == o.Attempt
}

// start starts the lease of the oldest task waiting for a slot of w, if
// any.
func (m *msim) start(w *simWorker) {
	if len(w.queue) == 0 {
		return
	}
	it := m.items[w.queue[0].seq]
	w.queue = w.queue[1:]
	m.starts++
	it.started, it.leaseAt, it.startNo = true, m.now, m.starts
}

// spare returns how many more tasks w may ask for: its slots and the
// prefetch granted it, less those it holds and has asked for.
func (m *msim) spare(w *simWorker) int {
	return w.slots + m.prefetch - len(w.holding) - w.credit
}

// stalled reports whether every slot of w is hung.
func (w *simWorker) stalled() bool { return len(w.hung) >= w.slots }

// grantOf returns the prefetch a master with MaxPrefetch p grants.
func grantOf(p int) int {
	switch p {
	case NoPrefetch:
		return 0
	case 0:
		return DefaultMaxPrefetch
	}
	return p
}

// giveUp is the model's tag wait timer: the items of every tag stuck for
// tagWait fail, and the tag is barred.
func (m *msim) giveUp() {
	for _, it := range m.items {
		since, stuck := m.stuck[it.tag]
		if it.phase == simQueued && stuck && !since.Add(m.tagWait).After(m.now) {
			m.leaveLine(it)
			m.conclude(it, Result[int]{Seq: it.seq}, ErrNoWorker)
			m.barred[it.tag] = true
		}
	}
}

// refuse is the model's rule for a barred tag: while no registered worker
// may take its items, they fail as they come; once one may, it is barred
// no more.
func (m *msim) refuse() {
	for tag := range m.barred {
		if m.capable(tag) {
			delete(m.barred, tag)
			continue
		}
		for _, it := range m.items {
			if it.phase == simQueued && it.tag == tag {
				m.leaveLine(it)
				m.conclude(it, Result[int]{Seq: it.seq}, ErrNoWorker)
			}
		}
	}
}

// leaveLine notes that the queued it leaves its line, not to a worker.
func (m *msim) leaveLine(it *simItem) {
	if it.slot {
		it.slot = false
		m.back++
	}
}

// conclude notes that it's result is known. why is the sentinel of a
// failure that is not the work's; the error itself is the master's.
func (m *msim) conclude(it *simItem, r Result[int], why error) {
	it.phase, it.result, it.why, it.concluded = simHeld, r, why, m.delivered
	if why != nil {
		it.result.Err = why // a placeholder; the emitted error must wrap it
	}
	if it.result.Err != nil {
		m.failedN++
	}
}

// effects checks the effects of one message against the model and applies
// the dispatches: they come in the order Emit, Sends, Demand, timers,
// Finish.
func (m *msim) effects(fx []agent.Effect) {
	const (
		deadKind = iota
		emitKind
		sendKind
		demandKind
		timerKind
		wantKind
		finishKind
	)
	last, demands := -1, 0
	for _, e := range fx {
		kind := -1
		switch e := e.(type) {
		case agent.DeadLetter:
			kind = deadKind
			m.deadN++
			if it := m.item(e.Seq); it == nil || it.result.Err == nil || it.concluded != m.delivered || e.Err == nil {
				m.fail("a dead letter for item %d, which did not just fail: %+v", e.Seq, e)
			}
		case agent.Emit[Result[int]]:
			kind = emitKind
			m.emit(e.Values)
		case agent.Send[Dispatch[int]]:
			kind = sendKind
			m.dispatch(e.Value)
		case agent.Demand:
			kind = demandKind
			demands++
			if e.N != m.back || e.N <= 0 {
				m.fail("gave %d input slots back, want %d", e.N, m.back)
			}
			m.credits += e.N
		case agent.Timer:
			kind = timerKind
			switch {
			case m.gauging && e.Tag == wantTimer && e.Delay == want.Step && !m.wantTimer.on:
				m.wantTimer = simTimer{on: true, due: m.now.Add(e.Delay)}
			case e.Delay < 0 || e.Tag < 1 || e.Tag > 2:
				m.fail("armed %+v", e)
			default:
				m.timers[e.Tag] = simTimer{on: true, due: m.now.Add(e.Delay)}
			}
		case agent.Send[Want]:
			kind = wantKind
			if !m.gauging {
				m.fail("a Want from a book without Drain: %+v", e)
			}
		case agent.Disarm:
			kind = timerKind
			if !m.timers[e.Tag].on {
				m.fail("disarmed timer %d, not pending", e.Tag)
			}
			m.timers[e.Tag].on = false
		case agent.Finish:
			kind = finishKind
			m.finish(e)
		default:
			m.fail("unexpected effect %#v", e)
		}
		if kind < last || kind == last && kind != sendKind && kind != timerKind && kind != deadKind && kind != wantKind {
			m.fail("effects out of order: %v", fx)
		}
		last = kind
	}
	if demands == 0 && m.back > 0 {
		m.fail("gave no input slot back, want %d", m.back)
	}
}

// emit checks the values emitted: results known, within demand, each
// once, in input order unless unordered, else in the order they became
// known; and their values and errors.
func (m *msim) emit(rs []Result[int]) {
	if len(rs) == 0 || len(rs) > m.demand {
		m.fail("emitted %d with a demand of %d", len(rs), m.demand)
	}
	for _, r := range rs {
		it := m.item(r.Seq)
		switch {
		case it == nil || it.phase != simHeld:
			m.fail("emitted %+v, not held (%+v)", r, it)
		case !m.unordered && r.Seq != uint64(m.emittedN):
			m.fail("emitted Seq %d out of order, want %d", r.Seq, m.emittedN)
		case r.Value != it.result.Value:
			m.fail("emitted %+v, want the value of the first success %d", r, it.result.Value)
		}
		m.checkError(it, r.Err)
		it.phase = simEmitted
		it.result.Err = r.Err
		m.emittedN++
		m.demand--
		if m.unordered {
			for _, o := range m.items {
				if o.phase == simHeld && o.concluded < it.concluded {
					m.fail("emitted %d, known at message %d, before %d, known at %d", r.Seq, it.concluded, o.seq, o.concluded)
				}
			}
		}
	}
}

// checkError checks the error an item is emitted with: the work's last
// error after maxAttempts failed attempts, or the sentinel of the lost
// worker, the expired lease or the tag no worker had.
func (m *msim) checkError(it *simItem, err error) {
	switch {
	case it.why == nil && it.result.Err == nil:
		if err != nil {
			m.fail("item %d emitted with %v, want a success", it.seq, err)
		}
	case it.why == nil:
		if err != it.result.Err || it.failures != m.maxAttempts {
			m.fail("item %d emitted with %v after %d failures, want %v after %d", it.seq, err, it.failures, it.result.Err, m.maxAttempts)
		}
	case !errors.Is(err, it.why):
		m.fail("item %d emitted with %v, want one wrapping %v", it.seq, err, it.why)
	case it.why != ErrNoWorker && it.failures != m.maxAttempts:
		m.fail("item %d failed with %v after %d failed attempts, want %d", it.seq, err, it.failures, m.maxAttempts)
	}
}

// dispatch checks a dispatch and applies it: to a registered worker with a
// slot not hung, within the slots and prefetch it asked for, MaxBatch and
// the window, each task the oldest queued item the worker may take, as the
// next attempt; its lease runs at once if the worker has a slot for it.
func (m *msim) dispatch(d Dispatch[int]) {
	w := m.worker(d.Worker)
	switch {
	case w == nil || !w.registered:
		m.fail("dispatched to worker %d, not registered", d.Worker)
	case w.stalled():
		m.fail("dispatched to worker %d, every slot of it hung", d.Worker)
	case len(d.Tasks) == 0 || len(d.Tasks) > m.maxBatch:
		m.fail("dispatched %d tasks, max batch %d", len(d.Tasks), m.maxBatch)
	case len(d.Tasks) > w.credit:
		m.fail("dispatched %d tasks to worker %d, which asked for %d", len(d.Tasks), w.id, w.credit)
	}
	for _, task := range d.Tasks {
		want := m.oldestFor(w)
		it := m.item(task.Item)
		switch {
		case m.leased()+m.held() >= m.window && (m.unordered || task.Item != uint64(m.emittedN)):
			// Only the next item to emit may go over the window, in
			// input order, as the results held wait for it.
			m.fail("dispatched item %d with %d leased and %d held, window %d", task.Item, m.leased(), m.held(), m.window)
		case want == nil || want != it:
			m.fail("dispatched item %d to worker %d, want the oldest it may take, %+v", task.Item, w.id, want)
		case task.Attempt != it.attempt+1:
			m.fail("dispatched item %d as attempt %d after attempt %d", task.Item, task.Attempt, it.attempt)
		case task.Value/4 != int(it.seq):
			m.fail("dispatched item %d with value %d", task.Item, task.Value)
		}
		m.leaveLine(it)
		m.dispatches++
		it.prev = it.holder
		it.phase, it.holder, it.attempt, it.dispatchAt, it.order = simLeased, w.id, task.Attempt, m.now, m.dispatches
		if m.running(w) < w.slots {
			m.starts++
			it.started, it.leaseAt, it.startNo = true, m.now, m.starts
		} else {
			w.queue = append(w.queue, holdup{seq: it.seq, attempt: it.attempt})
			m.waited++
		}
		w.credit--
		w.holding = append(w.holding, holdup{seq: it.seq, attempt: task.Attempt})
		m.dispatched++
	}
	if len(w.holding) > w.slots+m.prefetch {
		m.fail("worker %d holds %d tasks with %d slots and a prefetch of %d", w.id, len(w.holding), w.slots, m.prefetch)
	}
}

// running counts the items leased to w whose lease runs.
func (m *msim) running(w *simWorker) int {
	n := 0
	for _, it := range m.items {
		if it.phase == simLeased && it.holder == w.id && it.started {
			n++
		}
	}
	return n
}

// oldestFor returns the oldest queued item w may take, or nil.
func (m *msim) oldestFor(w *simWorker) *simItem {
	for _, it := range m.items {
		if it.phase == simQueued && (it.tag == "" || slices.Contains(w.tags, it.tag)) {
			return it
		}
	}
	return nil
}

// finish checks the Finish: once, after Close, with every item emitted,
// carrying an error of the first message that failed items.
func (m *msim) finish(e agent.Finish) {
	m.finishes++
	first := -1
	var errs []error
	for _, it := range m.items {
		if it.result.Err == nil {
			continue
		}
		switch {
		case first < 0 || it.concluded < first:
			first, errs = it.concluded, []error{it.result.Err}
		case it.concluded == first:
			errs = append(errs, it.result.Err)
		}
	}
	switch {
	case m.finishes > 1:
		m.fail("finished twice")
	case !m.closed:
		m.fail("finished before Close")
	case m.emittedN != len(m.items):
		m.fail("finished with %d of %d items emitted", m.emittedN, len(m.items))
	case first < 0 && e.Err != nil || first >= 0 && !slices.Contains(errs, e.Err):
		m.fail("finished with %v, want one of the first failures %v", e.Err, errs)
	}
}

// watch notes which tags are stuck, and since when: items queued for the
// tag, and no registered worker has it.
func (m *msim) watch() {
	now := map[string]bool{}
	for _, it := range m.items {
		if it.phase == simQueued && !m.capable(it.tag) {
			now[it.tag] = true
		}
	}
	for tag := range m.stuck {
		if !now[tag] {
			delete(m.stuck, tag)
		}
	}
	for tag := range now {
		if _, ok := m.stuck[tag]; !ok {
			m.stuck[tag] = m.now
		}
	}
}

// capable reports whether a registered worker may take items tagged tag.
func (m *msim) capable(tag string) bool {
	return slices.ContainsFunc(m.workers, func(w *simWorker) bool {
		return w.registered && !w.stalled() && (tag == "" || slices.Contains(w.tags, tag))
	})
}

// checkTimers checks that the lease timer is pending at the earliest
// lease deadline, the tag wait timer at the earliest instant a stuck tag
// gives up, and each is not pending when nothing is due.
func (m *msim) checkTimers() {
	var lease, wait simTimer
	for _, it := range m.items {
		if d := it.leaseAt.Add(m.lease); it.phase == simLeased && it.started && (!lease.on || d.Before(lease.due)) {
			lease = simTimer{on: true, due: d}
		}
	}
	for _, since := range m.stuck {
		if d := since.Add(m.tagWait); !wait.on || d.Before(wait.due) {
			wait = simTimer{on: true, due: d}
		}
	}
	if got := m.timers[leaseTimer]; got.on != lease.on || lease.on && !got.due.Equal(lease.due) {
		m.fail("lease timer %+v, want %+v", got, lease)
	}
	if got := m.timers[tagWaitTimer]; got.on != wait.on || wait.on && !got.due.Equal(wait.due) {
		m.fail("tag wait timer %+v, want %+v", got, wait)
	}
}

// invariants checks the master's Snapshot against the model, the input
// slots, and that nothing was left undone: no worker that asked left idle
// while items it may take wait and the window has room, no result held
// while it may go out, no Finish missing.
func (m *msim) invariants() {
	st := m.s.Snapshot()
	want := census.Snapshot{
		Load:     agent.Load{Failed: m.failedN, Demand: agent.Credit(m.demand)},
		Requeued: m.requeued, Retried: m.retried, Duplicates: m.duplicates, Refused: m.refused,
		Accepted: len(m.items), Emitted: m.emittedN, Closed: m.closed,
	}
	slots := 0
	flight := map[WorkerID]int{}
	for _, it := range m.items {
		if it.slot {
			slots++
		}
		switch it.phase {
		case simQueued:
			want.Queued++
			if want.Tags == nil {
				want.Tags = map[string]int{}
			}
			want.Tags[it.tag]++
			if !m.capable(it.tag) {
				want.Waiting++
			}
		case simLeased:
			want.InFlight++
			flight[it.holder]++
		case simHeld:
			want.Held++
		}
	}
	want.Done = want.Held + m.emittedN
	for _, w := range m.workers {
		if w.registered {
			want.Workers = append(want.Workers, census.Worker{
				ID: uint64(w.id), Addr: w.addr, Tags: w.tags, Slots: w.slots, Free: w.credit,
				InFlight: flight[w.id], Done: w.done, Failed: w.failed, Hung: len(w.hung),
			})
		}
	}
	if !sameStatus(st, want) {
		m.fail("status\n%+v\nwant\n%+v", st, want)
	}
	if m.credits < 0 || m.credits+slots != m.queue {
		m.fail("the feeder holds %d input slots and %d items hold one, bound %d", m.credits, slots, m.queue)
	}
	for _, w := range m.workers {
		if !w.registered || w.stalled() || w.credit == 0 {
			continue
		}
		it := m.oldestFor(w)
		next := !m.unordered && it != nil && it.seq == uint64(m.emittedN)
		if it != nil && (want.InFlight+want.Held < m.window || next) {
			m.fail("worker %d asked for %d, and item %d waits for it: %+v; window %d, leased %d, held %d; status %+v", w.id, w.credit, it.seq, *it, m.window, m.leased(), m.held(), m.s.Snapshot())
		}
	}
	if m.demand > 0 {
		if m.unordered && want.Held > 0 || !m.unordered && m.emittedN < len(m.items) && m.items[m.emittedN].phase == simHeld {
			m.fail("a result is held with a demand of %d", m.demand)
		}
	}
	if m.closed && m.emittedN == len(m.items) && m.finishes == 0 {
		m.fail("closed and everything emitted, but no Finish")
	}
	m.checkWants(st)
}

// checkWants checks, in a book with Config.Drain, the counts of each tag's
// items queued, leased and waiting for a retry, and that the tag wants a
// worker at least while it has items queued or leased, and none once it
// has none and is idle.
func (m *msim) checkWants(st census.Snapshot) {
	if !m.gauging {
		if st.Lines != nil {
			m.fail("a book without Drain measures its lines: %+v", st.Lines)
		}
		return
	}
	type counts struct{ queued, leased, retrying int }
	by := map[string]counts{}
	for _, it := range m.items {
		c := by[it.tag]
		switch it.phase {
		case simQueued:
			c.queued++
			if it.failures > 0 {
				c.retrying++
			}
		case simLeased:
			c.leased++
		}
		by[it.tag] = c
	}
	for _, l := range st.Lines {
		c := by[l.Tag]
		if l.Queued != c.queued || l.Leased != c.leased || l.Retrying != c.retrying {
			m.fail("tag %q measured %+v, want %+v", l.Tag, l, c)
		}
		last, came := m.arrived[l.Tag]
		// The book learns that time passed from the want timer, every
		// wantStep while some tag's λ is not 0.
		idle := m.closed || !came || m.now.Sub(last) >= want.Window+want.Step
		switch {
		case c.queued+c.leased > 0 && l.Want < 1:
			m.fail("tag %q wants no worker, with %d queued (%d to retry) and %d leased", l.Tag, c.queued, c.retrying, c.leased)
		case c.queued+c.leased == 0 && idle && l.Want != 0:
			m.fail("tag %q is empty and idle, and wants %d workers", l.Tag, l.Want)
		case l.Want < 0 || l.Rate < 0 || l.Service < 0:
			m.fail("tag %q measured %+v", l.Tag, l)
		}
	}
}

// checkEnd checks that every accepted item was emitted, and Finish came.
func (m *msim) checkEnd() {
	for _, it := range m.items {
		if it.phase != simEmitted {
			m.fail("item %d ended in phase %d", it.seq, it.phase)
		}
	}
	if m.finishes != 1 {
		m.fail("%d finishes", m.finishes)
	}
	if m.deadN != m.failedN {
		m.fail("%d dead letters for %d items failed for good", m.deadN, m.failedN)
	}
}

func (m *msim) count(phase int) int {
	n := 0
	for _, it := range m.items {
		if it.phase == phase {
			n++
		}
	}
	return n
}

func (m *msim) leased() int { return m.count(simLeased) }
func (m *msim) held() int   { return m.count(simHeld) }

func (m *msim) item(seq uint64) *simItem {
	if seq >= uint64(len(m.items)) {
		return nil
	}
	return m.items[seq]
}

func (m *msim) worker(id WorkerID) *simWorker {
	if id < 1 || int(id) > len(m.workers) {
		return nil
	}
	return m.workers[id-1]
}

func (m *msim) fail(format string, args ...any) {
	m.t.Helper()
	m.t.Fatalf("seed %d, message %d (%#v): %s", m.seed, m.delivered, m.last, fmt.Sprintf(format, args...))
}

// sameStatus is reflect.DeepEqual for two Statuses, made cheap enough to
// run on every message.
func sameStatus(a, b census.Snapshot) bool {
	return a.Load == b.Load && a.Waiting == b.Waiting && a.Held == b.Held && a.Requeued == b.Requeued &&
		a.Retried == b.Retried && a.Duplicates == b.Duplicates && a.Refused == b.Refused && a.Accepted == b.Accepted &&
		a.Emitted == b.Emitted && a.Closed == b.Closed && maps.Equal(a.Tags, b.Tags) && (a.Tags == nil) == (b.Tags == nil) &&
		slices.EqualFunc(a.Workers, b.Workers, func(v, w census.Worker) bool {
			return v.ID == w.ID && v.Addr == w.Addr && slices.Equal(v.Tags, w.Tags) && v.Slots == w.Slots && v.Free == w.Free &&
				v.InFlight == w.InFlight && v.Done == w.Done && v.Failed == w.Failed && v.Hung == w.Hung
		})
}

// sameEffects reports whether a and b are the same effects, taking two
// errors with the same message for the same: the errors of items that
// fail for good are made anew each time.
func sameEffects(a, b []agent.Effect) bool {
	return slices.EqualFunc(a, b, func(x, y agent.Effect) bool {
		switch ex := x.(type) {
		case agent.Emit[Result[int]]:
			ey, ok := y.(agent.Emit[Result[int]])
			return ok && slices.EqualFunc(ex.Values, ey.Values, func(p, q Result[int]) bool {
				return p.Seq == q.Seq && p.Value == q.Value && sameError(p.Err, q.Err)
			})
		case agent.Finish:
			ey, ok := y.(agent.Finish)
			return ok && sameError(ex.Err, ey.Err)
		}
		return reflect.DeepEqual(x, y)
	})
}

// sameError reports whether a and b are the same error, or two with the
// same message.
func sameError(a, b error) bool {
	return a == b || a != nil && b != nil && a.Error() == b.Error()
}
