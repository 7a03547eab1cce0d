package timer

import (
	"time"

	"github.com/evolvekit/evolve/internal/fifo"
)

// Deadlines are the deadlines of the leases a book gave, one for each
// attempt at an item, in the order they were given, which is that of
// their instants as long as messages come at instants that do not go
// back. A deadline no longer counts once its item is not leased under
// that attempt: the caller says which do with live. The zero Deadlines
// holds none.
type Deadlines struct{ q fifo.Deque[End] }

// End is the deadline of one attempt at one item.
type End struct {
	Seq     uint64
	Attempt int
	Due     time.Time
}

// Add adds the deadline of attempt at item seq, due at due.
func (d *Deadlines) Add(seq uint64, attempt int, due time.Time) {
	d.q.PushBack(End{Seq: seq, Attempt: attempt, Due: due})
}

// Next returns the earliest deadline that live says counts, dropping
// those ahead of it that no longer do; ok is false if none counts.
func (d *Deadlines) Next(live func(End) bool) (end End, ok bool) {
	for d.q.Len() > 0 {
		if e := *d.q.At(0); live(e) {
			return e, true
		}
		d.q.PopFront()
	}
	return End{}, false
}

// Pop takes out the earliest deadline that counts if it is due by at, and
// returns it; ok is false if none is.
func (d *Deadlines) Pop(at time.Time, live func(End) bool) (end End, ok bool) {
	e, ok := d.Next(live)
	if !ok || e.Due.After(at) {
		return End{}, false
	}
	d.q.PopFront()
	return e, true
}

// Clone returns a copy of d that shares nothing with it.
func (d *Deadlines) Clone() Deadlines { return Deadlines{q: d.q.Clone()} }
