package fair

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/internal/fifo"
)

// Queue holds items of type V in a line per key of type K, and hands them
// out in the order the package doc describes. Build one with New.
type Queue[K comparable, V any] struct {
	quantum time.Duration
	weights map[K]int // the weights set; 1 for a key not in it
	flows   map[K]*flow[K, V]
	ring    fifo.Deque[*flow[K, V]] // the backlogged keys' flows, the one whose turn it is first
	turn    bool                    // whether the first of the ring has had its credit this turn
	// left is what the turn may still charge: the key's credit as the turn
	// began. A correction Done makes during the turn moves the credit,
	// not the turn: the work of a key whose first items were charged too
	// much does not lengthen the turn it is in as it ends.
	left time.Duration
	idle int           // turns since one started an item, to skip a round of spent keys
	n    int           // items queued
	last *flow[K, V]   // the flow Push found last: a flood pushes runs of one key
	free []*flow[K, V] // flows forgotten, kept for keys to come: a few
	cost mean          // what every key's items have taken
}

// flow is one key's line and its accounts.
type flow[K comparable, V any] struct {
	key    K
	items  fifo.Deque[V]
	weight int
	credit time.Duration // credit left, negative for a debt
	cost   mean          // what its items have taken
	flight int           // its items started and not yet Done
}

// mean is a moving average of the time an item takes.
type mean struct {
	d     time.Duration
	known bool
}

// add folds one item's time into m.
func (m *mean) add(d time.Duration) {
	if !m.known {
		m.d, m.known = d, true
		return
	}
	m.d += (d - m.d) / 8
}

// DefaultQuantum is the quantum a stage shares its work with when its
// configuration names none: a key's turn lasts about a millisecond of
// work, so that the bound is a millisecond and one item.
const DefaultQuantum = time.Millisecond

// New returns an empty Queue that credits a key quantum times its weight
// each turn: a few times the time an item takes keeps a turn to a few
// items, and the bound (see the package doc) to a few items' work. It
// returns an error if quantum is not positive.
func New[K comparable, V any](quantum time.Duration) (*Queue[K, V], error) {
	if quantum <= 0 {
		return nil, fmt.Errorf("fair: the quantum must be positive, not %v", quantum)
	}
	return &Queue[K, V]{quantum: quantum, weights: map[K]int{}, flows: map[K]*flow[K, V]{}}, nil
}

// SetWeight gives key k weight w from its next turn on: its share against
// another key's is w to theirs. Every key weighs 1 until set. It returns
// an error if w is below 1.
func (q *Queue[K, V]) SetWeight(k K, w int) error {
	if w < 1 {
		return fmt.Errorf("fair: a key's weight must be at least 1, not %d", w)
	}
	if w == 1 {
		delete(q.weights, k)
	} else {
		q.weights[k] = w
	}
	if f := q.flows[k]; f != nil {
		f.weight = w
	}
	return nil
}

// weight returns k's weight.
func (q *Queue[K, V]) weight(k K) int {
	if w, ok := q.weights[k]; ok {
		return w
	}
	return 1
}

// Len counts the items queued.
func (q *Queue[K, V]) Len() int { return q.n }

// Keys counts the keys with items queued.
func (q *Queue[K, V]) Keys() int { return q.ring.Len() }

// Queued counts the items of key k queued.
func (q *Queue[K, V]) Queued(k K) int {
	if f := q.flows[k]; f != nil {
		return f.items.Len()
	}
	return 0
}

// Push queues v, an item of key k, behind k's others.
func (q *Queue[K, V]) Push(k K, v V) {
	f := q.last
	if f == nil || f.key != k {
		f = q.flows[k]
	}
	if f == nil {
		f = q.newFlow(k)
		q.flows[k] = f
	}
	if f.items.Len() == 0 {
		q.ring.PushBack(f)
	}
	f.items.PushBack(v)
	q.n++
	q.last = f
}

// maxFree is the most flows a Queue keeps for keys to come.
const maxFree = 1024

// newFlow returns the accounts of key k, new, in a flow forgotten if one
// is kept (its line's buffer with it).
func (q *Queue[K, V]) newFlow(k K) *flow[K, V] {
	if n := len(q.free); n > 0 {
		f := q.free[n-1]
		q.free = q.free[:n-1]
		*f = flow[K, V]{key: k, items: f.items, weight: q.weight(k)}
		return f
	}
	return &flow[K, V]{key: k, weight: q.weight(k)}
}

// Pop hands out the next item to start, its key, and what its key is
// charged for it, which Done is told back; ok is false when none is
// queued.
func (q *Queue[K, V]) Pop() (k K, v V, charge time.Duration, ok bool) {
	for q.ring.Len() > 0 {
		f := *q.ring.At(0)
		k = f.key
		if !q.turn {
			f.credit += q.quantum * time.Duration(f.weight)
			q.turn, q.left = true, f.credit
		}
		if f.credit > 0 && q.left > 0 {
			v = f.items.PopFront()
			q.n--
			charge = q.estimate(f)
			f.credit -= charge
			q.left -= charge
			f.flight++
			q.idle = 0
			if f.items.Len() == 0 {
				q.leave()
			}
			return k, v, charge, true
		}
		q.ring.PopFront()
		q.ring.PushBack(f)
		q.turn = false
		if q.idle++; q.idle >= q.ring.Len() {
			q.skip()
		}
	}
	return k, v, 0, false
}

// PopRun is Pop for up to most items at once: it appends to into the
// items of the key whose turn it is that its turn lets start, up to most,
// and returns them with the key and what it was charged for them in all
// (each item an estimate, as Pop charges it); into comes back as it was
// when none is queued.
func (q *Queue[K, V]) PopRun(most int, into []V) (k K, items []V, charge time.Duration) {
	k, v, c, ok := q.Pop()
	if !ok || most < 1 {
		return k, into, 0
	}
	into = append(into, v)
	charge = c
	if q.ring.Len() == 0 || (*q.ring.At(0)).key != k {
		return k, into, charge // its line emptied
	}
	f := *q.ring.At(0)
	m := min(most-1, f.items.Len())
	if c > 0 {
		m = min(m, int((f.credit+c-1)/c), int((q.left+c-1)/c))
	}
	if m <= 0 {
		return k, into, charge
	}
	for range m {
		into = append(into, f.items.PopFront())
	}
	q.n -= m
	f.credit -= time.Duration(m) * c
	q.left -= time.Duration(m) * c
	f.flight += m
	charge += time.Duration(m) * c
	if f.items.Len() == 0 {
		q.leave()
	}
	return k, into, charge
}

// leave takes the first key of the ring, whose line emptied, out of it:
// it keeps a debt, but no credit, and its turn ends.
func (q *Queue[K, V]) leave() {
	f := q.ring.PopFront()
	k := f.key
	f.credit = min(f.credit, 0)
	q.turn = false
	q.forget(k, f)
}

// skip gives every key of the ring at once the turns it would take for
// the first of them to have credit again, once a whole round started
// nothing: each key is credited as those turns would, so shares keep.
func (q *Queue[K, V]) skip() {
	turns := time.Duration(-1)
	for i := range q.ring.Len() {
		f := *q.ring.At(i)
		per := q.quantum * time.Duration(f.weight)
		need := -f.credit/per + 1 // turns until its credit is positive
		if turns < 0 || need < turns {
			turns = need
		}
	}
	if turns <= 1 {
		q.idle = 0
		return
	}
	turns-- // the next turn credits the first key as it comes
	for i := range q.ring.Len() {
		f := *q.ring.At(i)
		f.credit += turns * q.quantum * time.Duration(f.weight)
	}
	q.idle = 0
}

// estimate returns what an item of f is charged as it starts: what f's
// items have taken, else what every key's have, else a quantum.
func (q *Queue[K, V]) estimate(f *flow[K, V]) time.Duration {
	switch {
	case f.cost.known:
		return f.cost.d
	case q.cost.known:
		return q.cost.d
	}
	return q.quantum
}

// Done says the work of an item of key k, charged charge as it started,
// took took: k is charged the difference. A key out of the ring keeps a
// debt but no credit.
func (q *Queue[K, V]) Done(k K, charge, took time.Duration) { q.DoneN(k, 1, charge, took) }

// DoneN is Done for n items of key k at once, charged charge in all as
// they started, whose work took took in all: each is taken to have taken
// took/n.
func (q *Queue[K, V]) DoneN(k K, n int, charge, took time.Duration) {
	if n < 1 {
		return
	}
	took = max(took, 0)
	each := took / time.Duration(n)
	for range n {
		q.cost.add(each)
	}
	f := q.flows[k]
	if f == nil {
		return // not started here, or forgotten: nothing to correct
	}
	for range n {
		f.cost.add(each)
	}
	f.flight = max(f.flight-n, 0)
	f.credit += charge - took
	if f.items.Len() == 0 {
		f.credit = min(f.credit, 0)
		q.forget(k, f)
	}
}

// forget drops the accounts of key k once its line is empty and nothing
// of it is in flight: its debt, if any, is forgiven, as deficit round
// robin forgives a flow that empties.
func (q *Queue[K, V]) forget(k K, f *flow[K, V]) {
	if f.items.Len() == 0 && f.flight == 0 {
		delete(q.flows, k)
		if q.last == f {
			q.last = nil
		}
		if len(q.free) < maxFree {
			q.free = append(q.free, f)
		}
	}
}

// Flows counts the keys whose accounts are kept: those with items queued
// or in flight.
func (q *Queue[K, V]) Flows() int { return len(q.flows) }

// Clone returns a copy of q that shares no memory with it.
func (q *Queue[K, V]) Clone() *Queue[K, V] {
	c := *q
	c.weights = make(map[K]int, len(q.weights))
	for k, w := range q.weights {
		c.weights[k] = w
	}
	c.flows = make(map[K]*flow[K, V], len(q.flows))
	for k, f := range q.flows {
		g := *f
		g.items = f.items.Clone()
		c.flows[k] = &g
	}
	c.last, c.free = nil, nil
	c.ring = fifo.Deque[*flow[K, V]]{}
	for i := range q.ring.Len() {
		c.ring.PushBack(c.flows[(*q.ring.At(i)).key])
	}
	return &c
}

// Freed is what an agent whose items have keys asks its runtime with an
// agent.Send effect, just before the agent.Demand that gives their input
// slots back: the keys of the items whose slots come back, so that Post
// can bound each key's items too.
type Freed struct {
	Runs []Run
}

// Run is N items of one key.
type Run struct {
	Key string
	N   int
}
