package book

import (
	"math"
	"slices"
	"time"

	"github.com/evolvekit/evolve/agent"
)

// dispatch hands queued items to the workers that may take them, at
// instant at, as plan says, within the tokens the message brought behind
// a pacer (see pace.go), and asks for them to be sent.
func (b *Book[I, O, R]) dispatch(fx []agent.Effect, at time.Time) []agent.Effect {
	b.letIn()
	most := agent.Unbounded
	if b.pacer.Paced() {
		most = b.pacer.Tokens()
	}
	picks := b.plan(most)
	for from := 0; from < len(picks); {
		to := from + 1
		for to < len(picks) && picks[to].visit == picks[from].visit {
			to++
		}
		w := &b.workers[picks[from].worker]
		fx = b.give(fx, w, picks[from:to], at)
		if picks[from].visit >= 0 {
			b.next = w.id + 1
		}
		from = to
	}
	if b.pacer.Paced() {
		b.pacer.Spend(len(picks))
	}
	return fx
}

// pick is one task dispatch hands out: to the worker at index worker, of
// the oldest item of line, on the visit-th visit of a worker (-1 for the
// item unblock hands out).
type pick struct{ worker, line, visit int }

// plan returns the tasks dispatch hands out now, at most most of them, in
// order, taking nothing: while fewer than window items are leased or
// held, workers are visited in ID order from the one after the last
// served, so that work spreads, and each takes what it may (see takes),
// oldest first; once the window is full, see unblock. Each line's items
// are taken in order, so plan moves a head over each line rather than
// taking them, and the first k picks are what a plan of k would be: the
// passes it says are needed are those dispatch will use. Its slice is
// reused by the next plan.
func (b *Book[I, O, R]) plan(most int) []pick {
	picks := b.picks[:0]
	if b.queued == 0 || len(b.workers) == 0 || most <= 0 {
		return picks
	}
	heads := append(b.heads[:0], make([]int, len(b.lines))...)
	b.heads = heads
	room := b.window - b.leased - b.nHeld
	if room > 0 {
		first, _ := b.place(b.next)
		for k := range len(b.workers) {
			if room == 0 || len(picks) == most || len(picks) == b.queued {
				break
			}
			i := (first + k) % len(b.workers)
			w := &b.workers[i]
			for n := min(b.takes(w), room, most-len(picks)); n > 0; n-- {
				line := b.oldest(w, heads)
				if line < 0 {
					break
				}
				heads[line]++
				picks = append(picks, pick{worker: i, line: line, visit: k})
				room--
			}
		}
	}
	if room <= 0 && len(picks) < most {
		picks = b.unblock(picks, heads)
	}
	b.picks = picks
	return picks
}

// unblock plans the next item to emit, in input order, when the window is
// full and that item is queued (it was taken back from a worker): the
// results held wait for it, so the window would not free up otherwise. It
// goes to the first worker that may take it, which makes the window one
// item too small at most.
func (b *Book[I, O, R]) unblock(picks []pick, heads []int) []pick {
	if b.unordered || b.items.Len() == 0 || b.items.At(0).phase != phaseQueued {
		return picks
	}
	k := b.items.At(0).tag
	if heads[k] > 0 {
		return picks // planned already: it is the oldest of its line
	}
	for i := range b.workers {
		w := &b.workers[i]
		if b.takes(w) > planned(picks, i) && slices.Contains(w.lines, k) {
			heads[k]++
			return append(picks, pick{worker: i, line: k, visit: -1})
		}
	}
	return picks
}

// planned counts the picks for the worker at index i.
func planned(picks []pick, i int) int {
	n := 0
	for _, p := range picks {
		if p.worker == i {
			n++
		}
	}
	return n
}

// takes counts the tasks w may be handed now: the free slots it asked
// for, none while every slot of it is hung; behind a pacer, only those
// beyond its prefetch (see pace.go).
func (b *Book[I, O, R]) takes(w *member) int {
	switch {
	case w.stalled():
		return 0
	case b.pacer.Paced():
		return max(w.free-w.prefetch, 0)
	}
	return w.free
}

// give leases the items picks name to worker w, at instant at, each as a
// new attempt, and asks for them to be sent in Dispatches of at most
// maxBatch tasks.
func (b *Book[I, O, R]) give(fx []agent.Effect, w *member, picks []pick, at time.Time) []agent.Effect {
	var tasks []Task[I]
	for n, p := range picks {
		if tasks == nil {
			tasks = make([]Task[I], 0, min(len(picks)-n, b.maxBatch))
		}
		seq := b.lines[p.line].seqs.PopFront()
		e := b.entry(seq)
		b.unqueue(e)
		e.phase, e.worker, e.prev = phaseLeased, w.id, e.worker
		e.attempt++
		b.leased++
		b.lines[p.line].gauge.Leased++
		w.flight++
		w.free--
		b.hold(w, seq, e, at)
		tasks = append(tasks, Task[I]{Item: seq, Attempt: e.attempt, Value: e.value, Hops: e.prior + len(b.aside(seq, e).Steps())})
		if len(tasks) == cap(tasks) {
			fx = withEffect(fx, agent.Send[Dispatch[I]]{Value: Dispatch[I]{Worker: w.id, Tasks: tasks}})
			tasks = nil
		}
	}
	return fx
}

// oldest returns the line w takes from whose oldest item not yet planned
// (past heads, by line) is the oldest of all, or -1 if none of them holds
// one.
func (b *Book[I, O, R]) oldest(w *member, heads []int) int {
	best, oldest := -1, uint64(math.MaxUint64)
	for _, k := range w.lines {
		q := &b.lines[k].seqs
		if h := heads[k]; q.Len() > h && *q.At(h) < oldest {
			best, oldest = k, *q.At(h)
		}
	}
	return best
}

// withEffect appends e to fx, making room for the few effects a message asks for
// at once.
func withEffect(fx []agent.Effect, e agent.Effect) []agent.Effect {
	if fx == nil {
		fx = make([]agent.Effect, 0, 4)
	}
	return append(fx, e)
}
