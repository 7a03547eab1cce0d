package fairfetch

import (
	"time"

	"github.com/evolvekit/evolve/internal/fair"
)

// Book is what the fetch side knows of a queue's keys: how many items
// the stream held of each at the last count, and the items fetched and
// not yet started, in a fair.Queue that hands them out. It decides which
// keys to fetch from and how many, so that every key with items in the
// stream has some here (its turns in the fair queue are kept), while all
// it holds stays within twice a budget. It does no I/O and reads no clock; it
// is not safe for concurrent use.
type Book[V any] struct {
	q      *fair.Queue[string, V]
	lines  map[string]*line
	order  []string // the keys of lines, in the order Wants visits them
	start  int      // where in order the next Wants starts
	budget int      // the most items queued here
	most   int      // the most one fetch asks a key for
}

// line is one key's account.
type line struct {
	stored int  // items in the stream at the last count, less those fetched since
	dry    bool // a fetch brought fewer than it asked since the last count
}

// Want is a fetch to make: up to N items of key Key.
type Want struct {
	Key string
	N   int
}

// low is how few items of a key may be queued here before it is fetched
// from again: one, so that its line never empties while the stream holds
// more of it, and it keeps its place and credit in the fair queue.
const low = 1

// NewBook returns an empty Book whose fair queue has the quantum and the
// weights given (keys not in weights weigh 1), which holds at most
// budget items (at least 2) and asks a key for at most most items (at
// least 1) at once. It returns an error for a quantum not positive or a
// weight below 1.
func NewBook[V any](quantum time.Duration, weights map[string]int, budget, most int) (*Book[V], error) {
	q, err := fair.New[string, V](quantum)
	if err != nil {
		return nil, err
	}
	for k, w := range weights {
		if err := q.SetWeight(k, w); err != nil {
			return nil, err
		}
	}
	return &Book[V]{q: q, lines: map[string]*line{}, budget: max(budget, 2), most: max(most, 1)}, nil
}

// Count takes a new count of the items the stream holds of each key
// (a key not in stored holds none), and clears every dry mark.
func (b *Book[V]) Count(stored map[string]int) {
	for k, n := range stored {
		l := b.lines[k]
		if l == nil {
			l = &line{}
			b.lines[k] = l
			b.order = append(b.order, k)
		}
		l.stored, l.dry = n, false
	}
	kept := b.order[:0]
	for _, k := range b.order {
		if _, ok := stored[k]; !ok && b.q.Queued(k) == 0 {
			delete(b.lines, k)
			continue
		}
		if _, ok := stored[k]; !ok {
			b.lines[k].stored = 0
		}
		kept = append(kept, k)
	}
	clear(b.order[len(kept):])
	b.order = kept
	if b.start >= len(b.order) {
		b.start = 0
	}
}

// Wants appends to dst the fetches to make now: one for each key, in
// turn from where the last call stopped, that has low items queued here
// or fewer, more in the stream, and no dry mark, as long as the budget
// has room.
func (b *Book[V]) Wants(dst []Want) []Want {
	room := b.budget - b.q.Len()
	n := len(b.order)
	for i := 0; i < n && room > 0; i++ {
		k := b.order[(b.start+i)%n]
		if m := b.want(k, room); m > 0 {
			dst = append(dst, Want{Key: k, N: m})
			room -= m
		}
	}
	if n > 0 {
		b.start = (b.start + 1) % n
	}
	return dst
}

// Want returns how many items of key k to fetch now, as Wants would: 0
// for none.
func (b *Book[V]) Want(k string) int { return b.want(k, b.budget-b.q.Len()) }

// want returns how many items of k to fetch with room left in the
// budget. Were a key's line to empty while the stream holds more of it,
// it would lose its credit and its place in the turns; so a line starts
// only with room for two items (or all the stream has), and one that has
// fallen to low gets an item past the budget if need be, to last through
// the next Pop. The book holds at most twice the budget.
func (b *Book[V]) want(k string, room int) int {
	l := b.lines[k]
	queued := b.q.Queued(k)
	switch {
	case l == nil || l.dry || l.stored <= 0 || queued > low:
		return 0
	case queued == 0 && room < min(low+1, l.stored):
		return 0
	case queued > 0:
		room = max(room, low+1-queued)
	}
	return max(min(b.share(), l.stored, room), 0)
}

// share is the most one fetch asks a key for: the budget split among
// the keys counted, with room for two fetches each, between 2 and most.
func (b *Book[V]) share() int {
	return min(max(b.budget/(2*max(len(b.order), 1)), 2), b.most)
}

// Fetched queues vs, the items a fetch of asked items of key k brought:
// fewer than asked marks k dry until the next count, as the stream's
// other items of k are held by someone.
func (b *Book[V]) Fetched(k string, vs []V, asked int) {
	l := b.lines[k]
	if l == nil {
		l = &line{}
		b.lines[k] = l
		b.order = append(b.order, k)
	}
	l.stored -= len(vs)
	if len(vs) < asked {
		l.dry = true
	}
	for _, v := range vs {
		b.q.Push(k, v)
	}
}

// Pop hands out the next item to start, its key, and what its key is
// charged for it, which Done is told back (see fair.Queue.Pop).
func (b *Book[V]) Pop() (k string, v V, charge time.Duration, ok bool) { return b.q.Pop() }

// Done says the work of an item of key k, charged charge as it started,
// took took (see fair.Queue.Done).
func (b *Book[V]) Done(k string, charge, took time.Duration) { b.q.Done(k, charge, took) }

// Len counts the items queued here.
func (b *Book[V]) Len() int { return b.q.Len() }

// Keys counts the keys the book keeps a line or a count of.
func (b *Book[V]) Keys() int { return len(b.order) }

// Queued counts the items of k queued here.
func (b *Book[V]) Queued(k string) int { return b.q.Queued(k) }

// Drain takes every item queued here out, without starting any: the
// items go back to the stream, and the Book is not used again.
func (b *Book[V]) Drain() []V {
	out := make([]V, 0, b.q.Len())
	for {
		_, v, _, ok := b.q.Pop()
		if !ok {
			return out
		}
		out = append(out, v)
	}
}

// CountDue reports whether the keys are to be counted again at now, the
// last count having been at last (zero for none): when none was, when
// nothing is queued here, or every interval.
func CountDue(now, last time.Time, empty bool, interval time.Duration) bool {
	return last.IsZero() || empty || now.Sub(last) >= interval
}
