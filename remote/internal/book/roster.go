package book

import (
	"fmt"
	"slices"
	"time"
)

// member returns the registered worker id, or nil.
func (b *Book[I, O, R]) member(id WorkerID) *member {
	i, ok := b.place(id)
	if !ok {
		return nil
	}
	return &b.workers[i]
}

// place returns where worker id is, or would go, in workers: a binary
// search that reads each member where it is rather than copying it.
func (b *Book[I, O, R]) place(id WorkerID) (int, bool) {
	lo, hi := 0, len(b.workers)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if b.workers[mid].id < id {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(b.workers) && b.workers[lo].id == id
}

// join registers the worker j describes, with no free slot: it asks for
// work once it has joined. It reports false for a worker already known.
func (b *Book[I, O, R]) join(j Joined) bool {
	i, known := b.place(j.Worker)
	if known {
		return false
	}
	w := member{id: j.Worker, addr: j.Addr, tags: slices.Clone(j.Tags), slots: j.Slots, prefetch: max(j.Prefetch, 0),
		room: j.Slots + max(b.prefetch, j.Prefetch), lines: []int{0}}
	for _, tag := range j.Tags {
		k := b.line(tag)
		if k == 0 || slices.Contains(w.lines, k) {
			continue
		}
		w.lines = append(w.lines, k)
		b.lines[k].capable++
	}
	b.seat(&w, 1)
	b.workers = slices.Insert(b.workers, i, w)
	return true
}

// ask adds the free slots a asks for, at instant at, when the worker is
// heard from, up to its slots and the prefetch granted it. It reports false
// for a worker not registered.
func (b *Book[I, O, R]) ask(a Asked, at time.Time) bool {
	w := b.member(a.Worker)
	if w == nil {
		return false
	}
	if a.N > 0 {
		w.free += min(a.N, w.room-w.free)
		w.heard = at
	}
	return true
}

// leave removes the worker l names, and requeues every item still leased to
// it, with no attempt counted: it sends nothing more. It reports false for a
// worker not registered.
func (b *Book[I, O, R]) leave(l Left) bool {
	return b.drop(l.Worker, func(seq uint64, e *entry[I, O], _ bool) bool {
		b.requeue(seq, e)
		return true
	})
}

// lose removes the worker l names, and takes back every item leased to it
// as a failed attempt, but for those that waited for a slot of it: they
// never started. It reports false for a worker not registered.
func (b *Book[I, O, R]) lose(l Lost) bool {
	return b.drop(l.Worker, func(seq uint64, e *entry[I, O], waited bool) bool {
		if waited {
			b.requeue(seq, e)
			return true
		}
		return b.retry(seq, e, lostWith(seq, e, ErrWorkerLost))
	})
}

// drop forgets the registered worker id, and hands each item leased to it
// to back, saying whether it waited for a slot there; back reports whether
// it requeued the item. It reports false for a worker not registered.
func (b *Book[I, O, R]) drop(id WorkerID, back func(seq uint64, e *entry[I, O], waited bool) bool) bool {
	i, ok := b.place(id)
	if !ok {
		return false
	}
	w := &b.workers[i]
	for k := 0; k < b.items.Len() && w.flight > 0; k++ {
		if e := b.items.At(k); e.phase == phaseLeased && e.worker == id {
			waited := e.waits
			b.unlease(e)
			if back(b.base+uint64(k), e, waited) {
				b.requeued++
			}
		}
	}
	if w.stalled() {
		b.stall(w, -1)
	}
	for _, k := range w.lines[1:] {
		b.lines[k].capable--
	}
	b.seat(w, -1)
	b.workers = slices.Delete(b.workers, i, i+1)
	return true
}

// lostWith returns the error an item fails with for good when its last
// attempt was lost with its worker (cause ErrWorkerLost) or its lease
// expired (cause ErrLeaseExpired); it is built only if it is used.
func lostWith[I, O any](seq uint64, e *entry[I, O], cause error) func() error {
	worker, attempts := e.worker, e.failures+1
	return func() error {
		return fmt.Errorf("remote: item %d failed %d attempts, the last on worker %d: %w", seq, attempts, worker, cause)
	}
}
