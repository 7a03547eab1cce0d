package timer

import (
	"time"

	"github.com/evolvekit/evolve/internal/fifo"
)

// Deadlines are the deadlines of the leases a book gave, one for each
// attempt at an item, in the order they were given, which is that of
// their instants as long as messages come at instants that do not go
// back. A deadline no longer counts once its item is not leased under
// that attempt: the caller says which do with live, given the item's Seq
// and the attempt. They are kept as
// Instants of a Clock, so that they hold no pointer. The zero Deadlines
// holds none.
type Deadlines struct {
	q      fifo.Deque[deadline]
	clock  Clock  // the key of an instant kept whole is its deadline's number
	popped uint64 // the deadlines taken out: the number of the first
}

// deadline is the deadline of one attempt at one item, as kept.
type deadline struct {
	seq     uint64
	attempt int
	due     Instant
}

// End is the deadline of one attempt at one item.
type End struct {
	Seq     uint64
	Attempt int
	Due     time.Time
}

// Add adds the deadline of attempt at item seq, due at due.
func (d *Deadlines) Add(seq uint64, attempt int, due time.Time) {
	n := d.popped + uint64(d.q.Len())
	d.q.PushBack(deadline{seq: seq, attempt: attempt, due: d.clock.Stamp(n, due)})
}

// Next returns the earliest deadline that live says counts, dropping
// those ahead of it that no longer do; ok is false if none counts.
func (d *Deadlines) Next(live func(seq uint64, attempt int) bool) (end End, ok bool) {
	for d.q.Len() > 0 {
		if l := d.q.At(0); live(l.seq, l.attempt) {
			return End{Seq: l.seq, Attempt: l.attempt, Due: d.clock.Time(d.popped, l.due)}, true
		}
		d.drop()
	}
	return End{}, false
}

// Pop takes out the earliest deadline that counts if it is due by at, and
// returns it; ok is false if none is.
func (d *Deadlines) Pop(at time.Time, live func(seq uint64, attempt int) bool) (end End, ok bool) {
	e, ok := d.Next(live)
	if !ok || e.Due.After(at) {
		return End{}, false
	}
	d.drop()
	return e, true
}

// drop takes out the first deadline.
func (d *Deadlines) drop() {
	d.clock.Forget(d.popped, d.q.At(0).due)
	d.q.DropFront()
	d.popped++
}

// Clone returns a copy of d that shares nothing with it.
func (d *Deadlines) Clone() Deadlines {
	return Deadlines{q: d.q.Clone(), clock: d.clock.Clone(), popped: d.popped}
}
