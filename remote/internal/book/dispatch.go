package book

import (
	"math"
	"slices"
	"time"

	"github.com/evolvekit/evolve/agent"
)

// dispatch hands queued items to the workers that asked for them, at
// instant at, while fewer than window items are leased or held: workers
// are visited in ID order from the one after the last served, so that work
// spreads, and each takes what it may, oldest first, up to its free slots.
// A worker whose every slot is hung gets nothing. Once the window is full,
// see unblock.
func (b *Book[I, O, R]) dispatch(fx []agent.Effect, at time.Time) []agent.Effect {
	if b.queued == 0 || len(b.workers) == 0 {
		return fx
	}
	room := b.window - b.leased - b.nHeld
	if room <= 0 {
		return b.unblock(fx, at)
	}
	first, _ := b.place(b.next)
	for k := range len(b.workers) {
		if room == 0 || b.queued == 0 {
			break
		}
		w := &b.workers[(first+k)%len(b.workers)]
		if w.stalled() || w.free <= 0 {
			continue
		}
		var n int
		fx, n = b.give(fx, w, min(w.free, room), at)
		if n > 0 {
			room -= n
			b.next = w.id + 1
		}
	}
	if room == 0 {
		return b.unblock(fx, at)
	}
	return fx
}

// unblock hands out the next item to emit, in input order, when the
// window is full and that item is queued (it was taken back from a
// worker): the results held wait for it, so the window would not free up
// otherwise. It goes to the first worker that may take it, which makes the
// window one item too small at most.
func (b *Book[I, O, R]) unblock(fx []agent.Effect, at time.Time) []agent.Effect {
	if b.unordered || b.items.Len() == 0 || b.items.At(0).phase != phaseQueued {
		return fx
	}
	k := b.items.At(0).tag
	for i := range b.workers {
		if w := &b.workers[i]; !w.stalled() && w.free > 0 && slices.Contains(w.lines, k) {
			fx, _ = b.give(fx, w, 1, at)
			return fx
		}
	}
	return fx
}

// give leases up to most items to worker w, at instant at, each as a new
// attempt, and asks for them to be sent in Dispatches of at most maxBatch
// tasks. It returns how many it gave.
func (b *Book[I, O, R]) give(fx []agent.Effect, w *member, most int, at time.Time) ([]agent.Effect, int) {
	var tasks []Task[I]
	n := 0
	for ; n < most; n++ {
		k := b.pick(w)
		if k < 0 {
			break
		}
		if tasks == nil {
			tasks = make([]Task[I], 0, min(most-n, b.maxBatch, b.queued))
		}
		seq := b.lines[k].seqs.PopFront()
		e := b.entry(seq)
		b.queued--
		b.freeSlot(e)
		e.phase, e.worker, e.prev = phaseLeased, w.id, e.worker
		e.attempt++
		b.leased++
		w.flight++
		w.free--
		b.hold(w, seq, e, at)
		tasks = append(tasks, Task[I]{Item: seq, Attempt: e.attempt, Value: e.value})
		if len(tasks) == cap(tasks) {
			fx = withEffect(fx, agent.Send[Dispatch[I]]{Value: Dispatch[I]{Worker: w.id, Tasks: tasks}})
			tasks = nil
		}
	}
	if len(tasks) > 0 {
		fx = withEffect(fx, agent.Send[Dispatch[I]]{Value: Dispatch[I]{Worker: w.id, Tasks: tasks}})
	}
	return fx, n
}

// pick returns the line w takes from whose oldest item is the oldest of
// all, or -1 if none of them holds an item.
func (b *Book[I, O, R]) pick(w *member) int {
	best, oldest := -1, uint64(math.MaxUint64)
	for _, k := range w.lines {
		q := &b.lines[k].seqs
		if q.Len() > 0 && *q.At(0) < oldest {
			best, oldest = k, *q.At(0)
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
