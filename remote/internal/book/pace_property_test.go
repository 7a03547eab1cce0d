package book

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/internal/fuzzin"
	"github.com/evolvekit/evolve/internal/pace"
)

// TestBehindAPacerEveryTaskTakesAToken drives a book behind a model of a
// pacer, as a rate stage before it in a chain would be: told Paced before
// any item comes (some workers joined and asked for their slots and a
// prefetch before that), the book gets items only within the room it
// opened, and passes only as it reserved them. The rest is random: items
// a few at a time, passes granted a few at a time, workers that join,
// ask, answer (failing some tasks), die, leave, or hold a task past its
// lease, downstream demand, the clock and the timers, Close. After every
// message it checks what keeps the pace (see checkPace): no more tasks go
// out than the tokens the message brought, each to a slot free on its
// worker; the room and the passes the pacer knows of are the book's; every
// queued item a worker could take has its pass coming; the room keeps the
// input bound; nothing is lost. Every few messages a Clone is given at
// once the passes reserved, and must hand out a task for each item a
// worker could take. Then it closes and drains, the pacer granting every
// pass reserved: every accepted item is emitted once, and the book
// finishes.
func TestBehindAPacerEveryTaskTakesAToken(t *testing.T) {
	const sequences, steps = 1500, 300
	var sum psim
	for seed := range uint64(sequences) {
		r := rand.New(rand.NewPCG(seed, 0x9ace))
		p := newPsim(t, fmt.Sprintf("seed %d", seed), r.IntN)
		for range steps {
			p.randomStep()
		}
		p.drain()
		if t.Failed() {
			return
		}
		sum.posted += p.posted
		sum.tasks += p.tasks
		sum.passes += p.passes
		sum.dropped += p.dropped
		sum.stranded += p.stranded
	}
	t.Logf("%d sequences x %d random steps, then close and drain: %d items, %d tasks, %d of them on a pass; "+
		"%d items came and found no slot, %d passes found none", sequences, steps, sum.posted, sum.tasks, sum.passes, sum.stranded, sum.dropped)
}

// FuzzPacedEvolve drives a book behind a pacer, through the harness of
// TestBehindAPacerEveryTaskTakesAToken, with every choice the harness
// makes (the configuration, each step, its arguments, the clock) read
// from the fuzzer's bytes, a byte a choice; once they run out, it closes
// and drains.
func FuzzPacedEvolve(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 1, 2, 0, 1, 2, 2, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 1, 3, 5, 7, 9})
	f.Add([]byte{7, 5, 1, 2, 1, 3, 0, 2, 4, 4, 4, 4, 9, 9, 9, 1, 1, 1, 12, 12, 12, 2, 6, 6, 6, 0, 8, 8, 3, 10, 10})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzin.New(data)
		p := newPsim(t, fmt.Sprintf("input %x", data), func(n int) int { return int(in.Byte()) % n })
		for n := 0; in.More() && n < fzMaxSteps; n++ {
			p.randomStep()
		}
		p.drain()
	})
}

// pworker is a worker process, honest: it asks for no more than its
// slots and the prefetch it was granted as it joined, runs a task as it
// comes if a slot is free or else holds it in its line, and runs a task
// whose lease expired on until it answers it.
type pworker struct {
	id       WorkerID
	slots    int
	prefetch int
	tags     []string
	gone     bool
	running  []holdup
	line     []holdup
	asked    int // slots asked for and not filled
}

// psim is the harness: the pacer before the book, and its workers.
type psim struct {
	t      *testing.T
	what   string // names the sequence in failures
	choose func(n int) int
	b      *Book[int, int, Result[int]]

	queue, window  int
	granted, first int // the prefetch the master's actor grants the workers that register; before the pace was known
	tagged         bool
	now            time.Time
	timers         [2]simTimer // the lease and tag wait timers, by tag - 1

	room, owed int // what the pacer may let through, and the passes it owes
	closed     bool
	posted     int
	emitted    map[uint64]int
	finishes   int
	workers    []*pworker

	tasks, passes, dropped, stranded int
	delivered                        int
}

func newPsim(t *testing.T, what string, choose func(n int) int) *psim {
	cfg := options[int]{
		Queue:       1 + choose(8),
		Window:      1 + choose(12),
		MaxBatch:    1 + choose(3),
		MaxAttempts: 1 + choose(3),
		Unordered:   choose(2) == 0,
		Lease:       time.Duration(2+choose(8)) * time.Second,
		TagWait:     time.Duration(3+choose(12)) * time.Second,
		MaxPrefetch: []int{NoPrefetch, 0, 2}[choose(3)],
	}
	if choose(3) > 0 {
		cfg.Tag = func(v int) string { return tagNames[v%4] }
	}
	b, err := newBook[int, int](cfg)
	if err != nil {
		t.Fatal(err)
	}
	b.silence = 0 // silence_test.go tests that rule
	p := &psim{t: t, what: what, choose: choose, b: b, queue: cfg.Queue, window: cfg.Window, granted: b.prefetch, first: b.prefetch, tagged: cfg.Tag != nil,
		now: agenttest.T0, emitted: map[uint64]int{}}
	p.deliver(agent.Pull{N: 1 + choose(6)})
	for range choose(3) { // workers that come before the pace is known
		p.ask(p.join(p.randomTags(), 1+choose(3)))
	}
	p.deliver(pace.In(pace.Paced{}))
	return p
}

func (p *psim) fail(format string, args ...any) {
	p.t.Helper()
	p.t.Fatalf("%s, message %d at +%v: "+format, append([]any{p.what, p.delivered, p.now.Sub(agenttest.T0)}, args...)...)
}

// randomStep moves the clock on, firing the timers due, then delivers
// one random message.
func (p *psim) randomStep() {
	p.advance(time.Duration(p.choose(4)) * 300 * time.Millisecond)
	switch k := p.choose(16); k {
	case 0, 1, 2, 3:
		p.send(1 + p.choose(4))
	case 4, 5:
		p.grant(1 + p.choose(3))
	case 6, 7, 8:
		if w := p.pick(func(w *pworker) bool { return len(w.running) > 0 }); w != nil {
			p.answer(w, p.choose(4) > 0)
		}
	case 9:
		if len(p.live()) < 5 {
			p.ask(p.join(p.randomTags(), 1+p.choose(3)))
		}
	case 10:
		if w := p.pick(nil); w != nil {
			p.ask(w)
		}
	case 11:
		p.deliver(agent.Pull{N: 1 + p.choose(4)})
	case 12:
		if w := p.pick(nil); w != nil {
			p.lose(w)
		}
	case 13:
		if w := p.pick(nil); w != nil {
			p.leave(w)
		}
	case 14:
		p.advance(time.Duration(p.choose(12)) * time.Second) // leases expire, tags give up
	case 15:
		if !p.closed && p.choose(32) == 0 {
			p.closed = true
			p.deliver(agent.Close{})
		}
	}
}

// randomTags returns the tags of a worker that joins.
func (p *psim) randomTags() []string {
	return [][]string{nil, {"a"}, {"b"}, {"a", "b"}}[p.choose(4)]
}

// live returns the workers registered.
func (p *psim) live() []*pworker {
	var ws []*pworker
	for _, w := range p.workers {
		if !w.gone {
			ws = append(ws, w)
		}
	}
	return ws
}

// pick returns a registered worker that ok accepts (any if ok is nil), or
// nil.
func (p *psim) pick(ok func(*pworker) bool) *pworker {
	var ws []*pworker
	for _, w := range p.live() {
		if ok == nil || ok(w) {
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 {
		return nil
	}
	return ws[p.choose(len(ws))]
}

// join registers a worker, granted the prefetch it wants within what the
// master's actor grants; now and then, one that registers just before
// the actor hears that the pace is known, granted what it was before.
func (p *psim) join(tags []string, slots int) *pworker {
	grant := p.granted
	if p.choose(8) == 0 {
		grant = p.first
	}
	wish := []int{0, slots, 8}[p.choose(3)]
	w := &pworker{id: WorkerID(len(p.workers) + 1), slots: slots, prefetch: min(wish, grant), tags: tags}
	p.workers = append(p.workers, w)
	p.deliver(agent.Event[Joined]{Value: Joined{Worker: w.id, Addr: fmt.Sprintf("w%d", w.id), Slots: slots, Tags: tags, Prefetch: w.prefetch}})
	return w
}

// ask has w ask for all the room it has and has not asked for.
func (p *psim) ask(w *pworker) {
	if n := w.slots + w.prefetch - len(w.running) - len(w.line) - w.asked; n > 0 {
		w.asked += n
		p.deliver(agent.Event[Asked]{Value: Asked{Worker: w.id, N: n}})
	}
}

// send lets through up to n items, within the room, none once closed.
func (p *psim) send(n int) {
	if n = min(n, p.room); n < 1 || p.closed {
		return
	}
	items := make([]int, n)
	for i := range items {
		items[i] = 4*(p.posted+i) + p.choose(4) // the tag, by tagNames
	}
	p.room -= n
	p.posted += n
	p.deliver(agent.Input[int]{Items: items})
}

// grant brings up to n of the passes owed.
func (p *psim) grant(n int) {
	if n = min(n, p.owed); n > 0 {
		p.owed -= n
		p.deliver(pace.In(pace.Pass{N: n}))
	}
}

// answer has w answer the task it runs first, a success or a failure; its
// slot frees for the task its line holds first, and it asks for one more.
func (p *psim) answer(w *pworker, ok bool) {
	h := w.running[0]
	w.running = w.running[1:]
	if len(w.line) > 0 {
		w.running, w.line = append(w.running, w.line[0]), w.line[1:]
	}
	o := Outcome[int]{Item: h.seq, Attempt: h.attempt, Value: int(h.seq)}
	if !ok {
		o = Outcome[int]{Item: h.seq, Attempt: h.attempt, Err: errors.New("failed")}
	}
	w.asked++
	p.deliver(agent.Event[Outcomes[int]]{Value: Outcomes[int]{Worker: w.id, Outcomes: []Outcome[int]{o}, Asked: 1}})
}

// lose has w die.
func (p *psim) lose(w *pworker) {
	w.gone = true
	p.deliver(agent.Event[Lost]{Value: Lost{Worker: w.id}})
}

// leave has w leave, handing back all it holds.
func (p *psim) leave(w *pworker) {
	w.gone = true
	var handed []uint64
	for _, h := range slices.Concat(w.running, w.line) {
		handed = append(handed, h.seq)
	}
	p.deliver(agent.Event[Left]{Value: Left{Worker: w.id, Handed: handed}})
}

// advance moves the clock on by d, delivering the Ticks of the timers due
// on the way, as the runtime would.
func (p *psim) advance(d time.Duration) {
	end := p.now.Add(d)
	for {
		tag := 0
		for i, tm := range p.timers {
			if tm.on && !tm.due.After(end) && (tag == 0 || tm.due.Before(p.timers[tag-1].due)) {
				tag = i + 1
			}
		}
		if tag == 0 {
			break
		}
		p.now = p.timers[tag-1].due
		p.timers[tag-1].on = false
		p.deliver(agent.Tick{Tag: uint64(tag)})
	}
	p.now = end
}

// drain closes the input, has a worker with every tag join, and then
// grants every pass, answers every task and asks for every slot free,
// until the book finishes.
func (p *psim) drain() {
	if p.finishes > 0 {
		return
	}
	if !p.closed {
		p.closed = true
		p.deliver(agent.Close{})
	}
	p.ask(p.join([]string{"a", "b"}, 3))
	p.deliver(agent.Pull{N: agent.Unbounded})
	for range 1000 {
		if p.finishes > 0 {
			p.checkEnd()
			return
		}
		p.grant(p.owed)
		for _, w := range p.live() {
			for len(w.running) > 0 && p.finishes == 0 {
				p.answer(w, true)
			}
			p.ask(w)
		}
		p.advance(time.Second)
	}
	p.fail("the book never finished: %+v, reserved %d, owed %d", p.b.Snapshot(), p.b.pacer.Reserved(), p.owed)
}

// checkEnd checks that every item came out once.
func (p *psim) checkEnd() {
	for seq := range uint64(p.posted) {
		if p.emitted[seq] != 1 {
			p.fail("item %d emitted %d times", seq, p.emitted[seq])
		}
	}
	if p.finishes != 1 {
		p.fail("finished %d times", p.finishes)
	}
}

// deliver evolves the book with msg, at the clock's instant, performs its
// effects as the runtime, the pacer and the workers would, and checks
// what keeps the pace.
func (p *psim) deliver(msg agent.Msg) {
	msg = agent.Stamp(msg, p.now)
	p.delivered++
	reserved := p.b.pacer.Reserved()
	var fx []agent.Effect
	p.b, fx = evolve(p.b, msg)
	if p.finishes > 0 {
		return
	}
	tasks := p.perform(fx)
	p.checkPace(msg, tasks, reserved)
	if p.delivered%5 == 0 {
		p.checkPasses()
	}
}

// perform does what fx asks, and returns how many tasks went out.
func (p *psim) perform(fx []agent.Effect) int {
	tasks := 0
	for _, e := range fx {
		switch e := e.(type) {
		case agent.Send[Dispatch[int]]:
			tasks += len(e.Value.Tasks)
			p.dispatch(e.Value)
		case agent.Send[pace.Reserve]:
			if e.Value.N < 1 {
				p.fail("reserved %d passes", e.Value.N)
			}
			p.owed += e.Value.N
		case agent.Send[pace.Room]:
			if e.Value.N < 1 {
				p.fail("opened room for %d items", e.Value.N)
			}
			p.room += e.Value.N
		case agent.Emit[Result[int]]:
			for _, r := range e.Values {
				p.emitted[r.Seq]++
			}
		case agent.Timer:
			if e.Tag <= 2 {
				p.timers[e.Tag-1] = simTimer{on: true, due: p.now.Add(e.Delay)}
			}
		case agent.Disarm:
			if e.Tag <= 2 {
				p.timers[e.Tag-1].on = false
			}
		case agent.Finish:
			p.finishes++
		case agent.Send[Prefetch]:
			if e.Value.N != 0 {
				p.fail("behind a pacer, granted a prefetch of %d", e.Value.N)
			}
			p.granted = 0
		case agent.Demand, agent.DeadLetter:
		default:
			p.fail("unexpected effect %#v", e)
		}
	}
	return tasks
}

// dispatch hands d's tasks to their worker: each must find a slot free
// there, and starts as it comes.
func (p *psim) dispatch(d Dispatch[int]) {
	w := p.workers[d.Worker-1]
	if w.gone {
		p.fail("tasks %v for worker %d, gone", d.Tasks, d.Worker)
	}
	for _, task := range d.Tasks {
		if len(w.running) >= w.slots {
			p.fail("task %+v for worker %d, whose %d slots run %v: it would wait, and start late", task, w.id, w.slots, w.running)
		}
		if it := p.b.entry(task.Item); it == nil || p.tagged && !slices.Contains(append(w.tags, ""), tagNames[it.value%4]) {
			p.fail("task %+v for worker %d, which may not take it", task, w.id)
		}
		w.running = append(w.running, holdup{seq: task.Item, attempt: task.Attempt})
		w.asked--
	}
}

// checkPace checks, after msg, which brought reserved passes at most,
// handed out tasks tasks: that no more went out than the tokens msg
// brought; that the pacer's room and passes owed are the book's; that
// every queued item a worker could take has its pass coming; that the
// room keeps the input bound; and that every item accepted is somewhere.
func (p *psim) checkPace(msg agent.Msg, tasks, reserved int) {
	b := p.b
	switch m := msg.(type) {
	case agent.Input[int]:
		if tasks > len(m.Items) {
			p.fail("%d tasks on %d items", tasks, len(m.Items))
		}
		p.stranded += len(m.Items) - min(tasks, len(m.Items))
	case agent.Event[pace.Pass]:
		if tasks > min(m.Value.N, reserved) {
			p.fail("%d tasks on %d passes, %d reserved", tasks, m.Value.N, reserved)
		}
		p.passes += tasks
		p.dropped += min(m.Value.N, reserved) - tasks
	default:
		if tasks > 0 {
			p.fail("%d tasks on %T, which brought no token", tasks, msg)
		}
	}
	p.tasks += tasks
	st := b.Snapshot()
	switch startable := len(b.plan(agent.Unbounded)); {
	case b.pacer.Reserved() != p.owed:
		p.fail("the book counts %d passes reserved, the pacer owes %d", b.pacer.Reserved(), p.owed)
	case !p.closed && b.pacer.Room() != p.room:
		p.fail("the book counts room for %d, the pacer %d", b.pacer.Room(), p.room)
	case startable > b.pacer.Reserved():
		p.fail("%d queued items a worker could take, %d passes reserved", startable, b.pacer.Reserved())
	case b.pacer.Room()+b.slotted > p.queue:
		p.fail("room for %d with %d items holding an input slot, over a bound of %d", b.pacer.Room(), b.slotted, p.queue)
	case st.Queued+st.InFlight+st.Held+st.Emitted != p.posted || st.Accepted != p.posted:
		p.fail("%d items posted: %+v", p.posted, st)
	case b.pacer.Tokens() != 0:
		p.fail("%d tokens kept after the message", b.pacer.Tokens())
	}
}

// checkPasses gives a Clone of the book at once the passes it reserved:
// it must hand out a task for each queued item a worker could take.
func (p *psim) checkPasses() {
	if p.b.pacer.Reserved() == 0 {
		return
	}
	want := len(p.b.plan(agent.Unbounded))
	c := p.b.Clone()
	_, fx := evolve(c, agent.Stamp(pace.In(pace.Pass{N: c.pacer.Reserved()}), p.now))
	got := 0
	for _, e := range fx {
		if d, ok := e.(agent.Send[Dispatch[int]]); ok {
			got += len(d.Value.Tasks)
		}
	}
	if got != want {
		p.fail("%d passes handed out %d tasks, where %d items may go", p.b.pacer.Reserved(), got, want)
	}
}
