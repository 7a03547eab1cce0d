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
	"github.com/evolvekit/evolve/remote/internal/move"
)

// TestRandomMovesLoseNothingAndSpendNoAttempt drives a book with seeded
// random sequences in which workers with and without tags join, leave and
// die, and answer their tasks with successes (some after moves they made
// themselves, holding the tags) and moves, to tags some worker holds or
// none does, while a hostile worker sends moves for items it does not
// hold, for attempts past, and with endless steps. After every message
// each item accepted and not emitted is in exactly one place (one line,
// once, or leased to one worker), its failed attempts are those its
// workers' deaths cost it and no more, its tasks carry the input of its
// last move and its moves so far, and its path is bounded; at the end every
// item is emitted once, a success with one step more in its path than the
// moves it made, an item that moved past the limit with ErrMoves.
func TestRandomMovesLoseNothingAndSpendNoAttempt(t *testing.T) {
	const sequences, steps = 200, 300
	var moves, pastLimit, noWorker int
	for seed := range uint64(sequences) {
		h := newMoveSim(t, seed)
		for range steps {
			h.randomStep()
		}
		h.drain()
		moves += h.s.moves
		pastLimit += h.why[move.ErrMoves]
		noWorker += h.why[ErrNoWorker]
		if t.Failed() {
			t.Logf("seed %d", seed)
			return
		}
	}
	t.Logf("%d sequences x %d steps: %d moves, %d items past the limit, %d with no worker for their tag",
		sequences, steps, moves, pastLimit, noWorker)
}

// FuzzMoves drives the harness of TestRandomMovesLoseNothingAndSpendNoAttempt
// with steps decoded from the fuzzer's bytes, one a byte, its other draws
// from a generator seeded by the input, and checks every message as the
// test does: no item lost or in two places, no attempt spent on a move,
// the tasks carrying the last move's input, the paths bounded, whatever a
// hostile worker sends; then it drains and checks every item came out
// once.
func FuzzMoves(f *testing.F) {
	f.Add([]byte{0, 0, 0, 20, 25, 40, 60, 70, 95, 0, 20, 60, 60, 78, 76, 84, 86, 90})
	f.Add([]byte{9, 9, 21, 21, 5, 30, 61, 62, 63, 64, 65, 77, 77, 77, 50, 85, 99, 99})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzin.New(data)
		h := newMoveSim(t, in.Seed())
		for n := 0; in.More() && n < fzMaxSteps; n++ {
			h.step(int(in.Byte()) % 100)
		}
		h.drain()
	})
}

// moveSim is the harness: the book, the workers, and what each item
// should hold.
type moveSim struct {
	t        *testing.T
	r        *rand.Rand
	s        *Book[int, int, Result[int]]
	now      time.Time
	credits  int
	accepted int
	workers  map[WorkerID]*moveWorker
	nextID   WorkerID
	value    map[uint64]int // the input each item's next task must carry
	hops     map[uint64]int // the moves taken, by item
	charged  map[uint64]int // the attempts the deaths of workers cost, by item
	emitted  map[uint64]Result[int]
	why      map[error]int
	maxMoves int
	seed     uint64
}

// moveWorker is a worker of the harness and the tasks it holds.
type moveWorker struct {
	id      WorkerID
	tags    []string
	slots   int
	credit  int // slots asked for and not filled
	holding []Task[int]
}

func newMoveSim(t *testing.T, seed uint64) *moveSim {
	r := rand.New(rand.NewPCG(seed, 0x40e5))
	maxMoves := 1 + r.IntN(4)
	s, err := newBook[int, int](options[int]{
		Queue: 8, Window: 1 + r.IntN(12), Unordered: r.IntN(2) == 0, MaxAttempts: 2 + r.IntN(3),
		Lease: time.Hour, TagWait: 5 * time.Second, MaxMoves: maxMoves, MaxPrefetch: NoPrefetch,
	})
	if err != nil {
		t.Fatal(err)
	}
	s.silence = 0
	h := &moveSim{t: t, r: r, s: s, now: agenttest.T0, credits: 8, workers: map[WorkerID]*moveWorker{},
		value: map[uint64]int{}, hops: map[uint64]int{}, charged: map[uint64]int{}, emitted: map[uint64]Result[int]{},
		why: map[error]int{}, maxMoves: maxMoves, seed: seed}
	h.deliver(agent.Pull{N: agent.Unbounded})
	return h
}

var moveTags = []string{"", "a", "b", "c"} // no worker ever holds "c"

// randomStep does one thing picked at random.
func (h *moveSim) randomStep() { h.step(h.r.IntN(100)) }

// step does the thing k, from 0 to 99, picks.
func (h *moveSim) step(k int) {
	switch {
	case k < 20:
		h.post()
	case k < 28:
		h.join()
	case k < 40:
		h.askAll(h.anyWorker())
	case k < 60:
		h.answer(h.anyWorker(), false)
	case k < 75:
		h.answer(h.anyWorker(), true)
	case k < 80:
		h.hostile()
	case k < 84:
		h.leave(h.anyWorker())
	case k < 88:
		h.lose(h.anyWorker())
	default:
		h.now = h.now.Add(time.Duration(h.r.IntN(2000)) * time.Millisecond)
		h.deliver(agent.Tick{Tag: tagWaitTimer})
	}
}

func (h *moveSim) post() {
	if h.credits == 0 || h.s.closed {
		return
	}
	n := 1 + h.r.IntN(h.credits)
	vs := make([]int, n)
	for i := range vs {
		vs[i] = h.accepted * 10
		h.value[uint64(h.accepted)] = vs[i]
		h.accepted++
	}
	h.credits -= n
	h.deliver(agent.Input[int]{Items: vs})
}

func (h *moveSim) join() {
	if len(h.workers) >= 4 {
		return
	}
	h.nextID++
	var tags []string
	for _, tag := range []string{"a", "b"} {
		if h.r.IntN(2) == 0 {
			tags = append(tags, tag)
		}
	}
	w := &moveWorker{id: h.nextID, tags: tags, slots: 1 + h.r.IntN(3)}
	h.workers[w.id] = w
	h.deliver(agent.Event[Joined]{Value: Joined{Worker: w.id, Addr: fmt.Sprint("w", w.id), Slots: w.slots, Tags: tags}})
	h.askAll(w)
}

func (h *moveSim) anyWorker() *moveWorker {
	if len(h.workers) == 0 {
		return nil
	}
	ids := make([]WorkerID, 0, len(h.workers))
	for id := range h.workers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return h.workers[ids[h.r.IntN(len(ids))]]
}

// askAll has w ask for every slot it has free and has not asked for.
func (h *moveSim) askAll(w *moveWorker) {
	if w == nil {
		return
	}
	n := w.slots - len(w.holding) - w.credit
	if n <= 0 {
		return
	}
	w.credit += n
	h.deliver(agent.Event[Asked]{Value: Asked{Worker: w.id, N: n}})
}

// answer has w end one of its tasks: a move to a random tag, or a
// success, either after up to two moves to tags w holds, made itself.
func (h *moveSim) answer(w *moveWorker, moves bool) {
	if w == nil || len(w.holding) == 0 {
		return
	}
	i := h.r.IntN(len(w.holding))
	task := w.holding[i]
	w.holding = slices.Delete(w.holding, i, i+1)
	var steps []string
	if len(w.tags) > 0 {
		for range h.r.IntN(3) {
			steps = append(steps, w.tags[h.r.IntN(len(w.tags))])
		}
	}
	addr := fmt.Sprint("w", w.id)
	if moves {
		next := task.Value + 1
		h.hops[task.Item] += len(steps) + 1
		h.value[task.Item] = next
		h.deliver(agent.Event[Moves[int]]{Value: Moves[int]{Worker: w.id, Addr: addr,
			Moves: []Move[int]{{Item: task.Item, Attempt: task.Attempt, Tag: moveTags[h.r.IntN(len(moveTags))], Next: next, Steps: steps}}}})
	} else {
		h.hops[task.Item] += len(steps)
		h.deliver(agent.Event[Outcomes[int]]{Value: Outcomes[int]{Worker: w.id, Addr: addr,
			Outcomes: []Outcome[int]{{Item: task.Item, Attempt: task.Attempt, Value: task.Value, Steps: steps}}}})
	}
	h.askAll(w)
}

// hostile sends a move for an item, at an attempt, that the sender does
// not hold (which must change nothing but the duplicates), or, for an item
// it holds, one with endless steps or one to a tag never seen.
func (h *moveSim) hostile() {
	w := h.anyWorker()
	if w != nil && len(w.holding) > 0 && h.r.IntN(3) == 0 {
		task := w.holding[0]
		w.holding = w.holding[1:]
		h.hops[task.Item]++
		h.value[task.Item] = -2
		h.deliver(agent.Event[Moves[int]]{Value: Moves[int]{Worker: w.id, Addr: "evil",
			Moves: []Move[int]{{Item: task.Item, Attempt: task.Attempt, Tag: fmt.Sprint("new", h.r.Uint64()), Next: -2}}}})
		return
	}
	if w != nil && len(w.holding) > 0 && h.r.IntN(2) == 0 {
		task := w.holding[0]
		w.holding = w.holding[1:]
		h.hops[task.Item] += 1000 + 1
		h.value[task.Item] = -1
		h.deliver(agent.Event[Moves[int]]{Value: Moves[int]{Worker: w.id, Addr: "evil",
			Moves: []Move[int]{{Item: task.Item, Attempt: task.Attempt, Tag: "a", Next: -1, Steps: make([]string, 1000)}}}})
		return
	}
	seq := uint64(h.r.IntN(h.accepted + 2))
	from := WorkerID(h.r.IntN(int(h.nextID) + 2))
	if e := h.s.entry(seq); e != nil && e.phase == phaseLeased && e.worker == from {
		return // it does hold it
	}
	before := h.s.duplicates
	h.deliver(agent.Event[Moves[int]]{Value: Moves[int]{Worker: from, Addr: "evil",
		Moves: []Move[int]{{Item: seq, Attempt: h.r.IntN(5), Tag: "forged", Next: -7}}}})
	if h.s.duplicates != before+1 {
		h.t.Errorf("a forged move is not counted a duplicate")
	}
}

func (h *moveSim) leave(w *moveWorker) {
	if w == nil {
		return
	}
	delete(h.workers, w.id)
	h.deliver(agent.Event[Left]{Value: Left{Worker: w.id}})
}

// lose has w die: each item it held at work is charged an attempt.
func (h *moveSim) lose(w *moveWorker) {
	if w == nil {
		return
	}
	delete(h.workers, w.id)
	for _, task := range w.holding {
		h.charged[task.Item]++
	}
	h.deliver(agent.Event[Lost]{Value: Lost{Worker: w.id}})
}

// drain closes the input, has a worker of every tag but "c" do all that
// is left, and lets the items of "c" give up.
func (h *moveSim) drain() {
	h.deliver(agent.Close{})
	for _, w := range h.workers {
		h.leave(w)
	}
	w := &moveWorker{id: h.nextID + 1, tags: []string{"a", "b"}, slots: 4}
	h.nextID++
	h.workers[w.id] = w
	h.deliver(agent.Event[Joined]{Value: Joined{Worker: w.id, Addr: "last", Slots: w.slots, Tags: w.tags}})
	for range 10000 {
		if h.s.finished {
			break
		}
		h.askAll(w)
		if len(w.holding) > 0 {
			h.answer(w, false)
			continue
		}
		h.now = h.now.Add(time.Second)
		h.deliver(agent.Tick{Tag: tagWaitTimer})
	}
	if !h.s.finished {
		h.t.Fatalf("the book did not finish: %+v", h.s.Snapshot())
	}
	for seq := range uint64(h.accepted) {
		r, ok := h.emitted[seq]
		if !ok {
			h.t.Fatalf("item %d was never emitted", seq)
		}
		switch {
		case r.Err == nil && h.hops[seq] > h.maxMoves, errors.Is(r.Err, move.ErrMoves) && h.hops[seq] <= h.maxMoves:
			h.t.Fatalf("item %d moved %d times, at most %d, and came to %v", seq, h.hops[seq], h.maxMoves, r.Err)
		case r.Err == nil && h.hops[seq] == 0 && r.Path != nil,
			r.Err == nil && h.hops[seq] > 0 && len(r.Path) != h.hops[seq]+1:
			h.t.Fatalf("item %d moved %d times and has the path %v", seq, h.hops[seq], r.Path)
		}
		if r.Err != nil {
			for _, why := range []error{move.ErrMoves, ErrNoWorker, ErrWorkerLost} {
				if errors.Is(r.Err, why) {
					h.why[why]++
				}
			}
		}
	}
}

// deliver evolves the book by msg, takes its effects, and checks it.
func (h *moveSim) deliver(msg agent.Msg) {
	var fx []agent.Effect
	h.s, fx = Evolve(h.s, agent.Stamp(msg, h.now))
	for _, e := range fx {
		switch e := e.(type) {
		case agent.Demand:
			h.credits += e.N
		case agent.Send[Dispatch[int]]:
			h.dispatched(e.Value)
		case agent.Emit[Result[int]]:
			for _, r := range e.Values {
				if _, twice := h.emitted[r.Seq]; twice {
					h.t.Fatalf("item %d emitted twice", r.Seq)
				}
				h.emitted[r.Seq] = r
			}
		}
	}
	h.check()
}

// dispatched hands d's tasks to their worker, checking what each carries.
func (h *moveSim) dispatched(d Dispatch[int]) {
	w := h.workers[d.Worker]
	for _, task := range d.Tasks {
		if task.Value != h.value[task.Item] || task.Hops != h.hops[task.Item] {
			h.t.Fatalf("item %d went out with %d after %d moves, not %d after %d", task.Item, task.Value, task.Hops,
				h.value[task.Item], h.hops[task.Item])
		}
		if w == nil {
			h.t.Fatalf("a task for worker %d, who is gone", d.Worker)
		}
		w.holding = append(w.holding, task)
		w.credit--
	}
}

// check asserts that every item not emitted is in one place, charged no
// attempt but for its workers' deaths, its path bounded.
func (h *moveSim) check() {
	b := h.s
	where := map[uint64]int{}
	for i := range b.lines {
		for k := range b.lines[i].seqs.Len() {
			where[*b.lines[i].seqs.At(k)]++
		}
	}
	queued, leased := 0, 0
	for k := range b.items.Len() {
		seq := b.base + uint64(k)
		e := b.items.At(k)
		switch e.phase {
		case phaseQueued:
			queued++
			if where[seq] != 1 {
				h.t.Fatalf("queued item %d is in %d lines", seq, where[seq])
			}
		case phaseLeased:
			leased++
			if where[seq] != 0 || b.member(e.worker) == nil {
				h.t.Fatalf("leased item %d is in %d lines, its worker %d registered: %v", seq, where[seq], e.worker, b.member(e.worker) != nil)
			}
		}
		if e.phase <= phaseLeased && e.failures != h.charged[seq] {
			h.t.Fatalf("seed %d: item %d was charged %d attempts, its workers' deaths %d", h.seed, seq, e.failures, h.charged[seq])
		}
		if path := b.aside(seq, e).Steps(); len(path) > h.maxMoves+1 {
			h.t.Fatalf("item %d has a path of %d steps", seq, len(path))
		}
	}
	for _, seq := range b.rares.Seqs() {
		if e := b.entry(seq); e == nil || !e.rare {
			h.t.Fatalf("item %d keeps something aside, but is gone or does not say so", seq)
		}
	}
	if queued != b.queued || leased != b.leased {
		h.t.Fatalf("%d queued and %d leased, the book counts %d and %d", queued, leased, b.queued, b.leased)
	}
}
