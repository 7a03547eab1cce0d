package book

import "time"

// Prefetch: a worker may hold more items than it has slots, up to the
// prefetch the master grants it (Config.Prefetch), so
// that its slots do not wait a round trip for their next item. An item
// that waits on its worker for a slot is not yet at work, so its lease
// does not run: the master starts it when a slot of the worker frees for
// it. The items leased to a worker beyond its slots wait, oldest first, in
// the order they were sent, which is the order the worker runs them in;
// a slot frees when a result comes back for an attempt the worker held,
// and also when the lease of one of its items expires (the work may hang
// for ever, and the items behind it must not wait for ever unwatched).
// So a lease bounds the time one item's work may take, wherever it waited
// before, as it does without prefetch.

// hold starts the lease of item seq, just leased to w (and counted in its
// flight) at instant at, if w has a slot for it; otherwise the item waits
// for one.
func (b *Book[I, O, R]) hold(w *member, seq uint64, e *entry[I, O], at time.Time) {
	if w.flight-w.waiting <= w.slots {
		b.begin(seq, e, at)
		return
	}
	e.waits = true
	w.waiting++
	w.queue.PushBack(attemptRef{seq: seq, attempt: e.attempt})
}

// start starts, at instant at, the lease of the oldest item that waits for
// a slot of w, if any: a slot of w has freed.
func (b *Book[I, O, R]) start(w *member, at time.Time) {
	if r, e := b.nextWaiting(w); e != nil {
		b.unwait(w, e)
		b.begin(r.seq, e, at)
	}
}

// begin starts the lease of item seq (e), under its attempt, at instant at.
func (b *Book[I, O, R]) begin(seq uint64, e *entry[I, O], at time.Time) {
	e.since = b.clock.Stamp(seq, at)
	b.leases.Add(seq, e.attempt, at.Add(b.lease))
}

// reclaim takes back every item that waits for a slot of w, which has
// said nothing for a whole lease: none has started, so none has failed an
// attempt, and each is queued again at once rather than one lease after
// the other. w still holds them, as hung: its late results count.
func (b *Book[I, O, R]) reclaim(w *member) {
	for {
		r, e := b.nextWaiting(w)
		if e == nil {
			return
		}
		b.unlease(e)
		b.hang(w, r)
		b.requeue(r.seq, e)
		b.requeued++
	}
}

// nextWaiting takes the oldest item that waits for a slot of w out of its
// queue, dropping the refs of items that no longer wait there, and returns
// it, or a nil entry if none waits.
func (b *Book[I, O, R]) nextWaiting(w *member) (attemptRef, *entry[I, O]) {
	for w.queue.Len() > 0 {
		r := w.queue.PopFront()
		if e := b.entry(r.seq); e != nil && e.waits && e.worker == w.id && e.attempt == r.attempt {
			return r, e
		}
	}
	return attemptRef{}, nil
}

// unwait notes that the leased item e no longer waits for a slot of w, if
// it did: it was taken back, or its result came.
func (b *Book[I, O, R]) unwait(w *member, e *entry[I, O]) {
	if !e.waits {
		return
	}
	e.waits = false
	if w == nil {
		return
	}
	w.waiting--
	if w.waiting == 0 {
		w.queue.Reset()
	}
}

// leasedTo reports whether item is leased to w under attempt.
func (b *Book[I, O, R]) leasedTo(w *member, item uint64, attempt int) bool {
	e := b.entry(item)
	return e != nil && e.phase == phaseLeased && e.worker == w.id && e.attempt == attempt
}
