package book

import (
	"time"

	"github.com/evolvekit/evolve/agent"
)

// collect takes the results a worker sent back, at instant at, when it is
// heard from. The worker need not be registered still: a dead worker's late result counts as any
// other. Each result for an attempt the worker held, leased to it or hung
// there, frees one of its slots, for the oldest item that waits for one.
func (b *Book[I, O, R]) collect(r Outcomes[O], at time.Time) {
	w := b.member(r.Worker)
	if w != nil {
		w.heard = at
	}
	for _, o := range r.Outcomes {
		hung := w != nil && len(w.hung) > 0 && b.unhang(w, attemptRef{seq: o.Item, attempt: o.Attempt})
		freed := hung || w != nil && b.leasedTo(w, o.Item, o.Attempt)
		b.served(r.Worker, o, at)
		b.outcome(r.Worker, r.Addr, w, o, hung)
		if freed {
			b.start(w, at)
		}
	}
	if r.Asked > 0 {
		b.ask(Asked{Worker: r.Worker, N: r.Asked}, at)
	}
}

// outcome takes one result from worker from, at addr (w, if registered).
// The first success for an item is its result, wherever the item is, if it
// comes from the worker its last attempt was leased to, or the one before,
// or one that held the attempt hung (a late result); from any other worker
// it is refused. A failure counts only for the attempt the item is leased
// under, to the worker that sent it. Anything else is a duplicate, dropped,
// as is the outcome of an attempt from before the item's last move.
func (b *Book[I, O, R]) outcome(from WorkerID, addr string, w *member, o Outcome[O], hung bool) {
	e := b.entry(o.Item)
	if e == nil || e.phase >= phaseHeld || b.aside(o.Item, e).Stale(o.Attempt) {
		b.duplicates++
		return
	}
	if o.Err == nil && !hung && (e.attempt == 0 || (from != e.worker && (e.attempt == 1 || from != e.prev))) {
		b.refused++
		return
	}
	if o.Err == nil {
		if e.phase == phaseQueued {
			b.dequeue(o.Item, e)
		} else {
			b.unlease(e)
		}
		if !b.walked(addr, o.Item, e, o) {
			return
		}
		b.conclude(o.Item, e, o.Value, nil)
		if w != nil {
			w.done++
		}
		return
	}
	if e.phase != phaseLeased || e.worker != from || e.attempt != o.Attempt {
		b.duplicates++
		return
	}
	b.unlease(e)
	if w != nil {
		w.failed++
	}
	if b.retry(o.Item, e, func() error { return o.Err }) {
		b.retried++
	}
}

// retry counts a failed attempt at item seq, which is in no line nor
// leased, and requeues it; once it has failed maxAttempts times, it fails
// for good with the error last returns instead. It reports whether the item
// was requeued.
func (b *Book[I, O, R]) retry(seq uint64, e *entry[I, O], last func() error) bool {
	e.failures++
	if e.failures >= b.maxAttempts {
		var none O
		b.conclude(seq, e, none, last())
		return false
	}
	b.requeue(seq, e)
	return true
}

// requeue puts item seq back in its line, ahead of the newer items. It
// takes no input slot.
func (b *Book[I, O, R]) requeue(seq uint64, e *entry[I, O]) {
	e.phase = phaseQueued
	b.lines[e.tag].seqs.Add(seq)
	b.queued++
	if e.failures > 0 {
		b.lines[e.tag].gauge.Retrying++
	}
}

// dequeue takes the queued item seq out of its line, and gives its input
// slot back if it still holds one.
func (b *Book[I, O, R]) dequeue(seq uint64, e *entry[I, O]) {
	b.lines[e.tag].seqs.Drop(seq)
	b.unqueue(e)
}

// unqueue counts the item e out of its line, which it left, and gives its
// input slot back if it still holds one.
func (b *Book[I, O, R]) unqueue(e *entry[I, O]) {
	b.queued--
	b.freeSlot(e)
	if e.failures > 0 {
		b.lines[e.tag].gauge.Retrying--
	}
}

// freeSlot gives the input slot of an item that leaves its line back, if
// it holds one: the first time it does.
func (b *Book[I, O, R]) freeSlot(e *entry[I, O]) {
	if e.slot {
		e.slot = false
		b.back++
		b.slotted--
		b.noteFreed(e)
	}
}

// unlease takes the leased item e back from its worker.
func (b *Book[I, O, R]) unlease(e *entry[I, O]) {
	b.leased--
	b.lines[e.tag].gauge.Leased--
	w := b.member(e.worker)
	if w != nil {
		w.flight--
	}
	b.unwait(w, e)
}

// conclude holds the result of item seq, which is in no line nor leased,
// for emission, and counts it.
func (b *Book[I, O, R]) conclude(seq uint64, e *entry[I, O], v O, err error) {
	if err != nil {
		b.dead = append(b.dead, agent.DeadLetter{Seq: seq, Item: e.value, Err: err, Attempts: e.failures})
	}
	b.lines[e.tag].fair.End(seq)
	var none I
	e.value, e.result, e.phase = none, v, phaseHeld
	b.nHeld++
	b.done++
	if err != nil {
		b.keep(seq, e).Err = err
		b.failed++
		if b.firstErr == nil {
			b.firstErr = err
		}
	}
	if b.unordered {
		b.held.PushBack(seq)
	}
}
