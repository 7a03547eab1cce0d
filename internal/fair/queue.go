package fair

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/evolvekit/evolve/internal/fifo"
)

// Queue holds items of type V in a line per key of type K, and hands them
// out in the order the package doc describes. Build one with New.
type Queue[K comparable, V any] struct {
	quantum time.Duration
	weights map[K]int // the weights set; 1 for a key not in it
	index   map[K]Flow
	flows   []flow[K, V]     // by Flow; those of keys swept out are in free
	ring    fifo.Deque[Flow] // the backlogged keys' flows, the one whose turn it is first
	turn    bool             // whether the first of the ring has had its credit this turn
	// left is what the turn may still charge: the key's credit as the turn
	// began. A correction Done makes during the turn moves the credit,
	// not the turn: the work of a key whose first items were charged too
	// much does not lengthen the turn it is in as it ends.
	left time.Duration
	idle int    // turns since one started an item, to skip a round of spent keys
	n    int    // items queued
	last Flow   // the flow Push found last, or none: a flood pushes runs of one key
	free []Flow // flows of keys swept out, for keys to come
	// dormant counts the flows of keys with nothing queued or in flight:
	// their accounts are forgotten, but they stay indexed, so that a key
	// that comes and goes costs no index's insert and delete each time,
	// until there are more of them than maxDormant and the active keys.
	dormant int
	cost    mean // what every key's items have taken
}

// Flow names the accounts of a key that has items queued or in flight:
// PopRun returns it, and DoneFlow takes it back, which spares Done's
// look-up of the key. It names the key until the key's last item in
// flight is Done.
type Flow int32

// none is the Flow of no key.
const none Flow = -1

// flow is one key's line and its accounts.
type flow[K comparable, V any] struct {
	key     K
	items   fifo.Deque[V]
	weight  int
	credit  time.Duration // credit left, negative for a debt
	cost    mean          // what its items have taken
	flight  int           // its items started and not yet Done
	started int           // its items started since its accounts were fresh
	dormant bool          // nothing queued or in flight: its accounts forgotten
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
	return &Queue[K, V]{quantum: quantum, weights: map[K]int{}, index: map[K]Flow{}, last: none}, nil
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
	if h, ok := q.index[k]; ok {
		q.flows[h].weight = w
	}
	return nil
}

// Weight returns k's weight.
func (q *Queue[K, V]) Weight(k K) int {
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
	if h, ok := q.index[k]; ok {
		return q.flows[h].items.Len()
	}
	return 0
}

// Push queues v, an item of key k, behind k's others.
func (q *Queue[K, V]) Push(k K, v V) {
	h := q.last
	if h == none || q.flows[h].key != k || q.flows[h].dormant {
		h = q.find(k)
	}
	f := &q.flows[h]
	if f.items.Len() == 0 {
		q.ring.PushBack(h)
	}
	f.items.PushBack(v)
	q.n++
	q.last = h
}

// find returns the flow of key k, made anew (its accounts fresh) if k had
// none or a dormant one.
func (q *Queue[K, V]) find(k K) Flow {
	h, ok := q.index[k]
	switch {
	case !ok:
		h = q.newFlow(k)
		q.index[k] = h
	case q.flows[h].dormant:
		// Its weight is kept: SetWeight sets an indexed key's, dormant
		// or not.
		f := &q.flows[h]
		f.credit, f.cost, f.flight, f.started, f.dormant = 0, mean{}, 0, 0, false
		q.dormant--
	}
	return h
}

// maxDormant is the most flows of keys with nothing queued or in flight
// that a Queue keeps indexed beyond as many as the active keys.
const maxDormant = 1024

// newFlow returns new accounts for key k, in a flow of a key swept out
// if one is kept (its line's buffer with it).
func (q *Queue[K, V]) newFlow(k K) Flow {
	if n := len(q.free); n > 0 {
		h := q.free[n-1]
		q.free = q.free[:n-1]
		f := &q.flows[h]
		*f = flow[K, V]{key: k, items: f.items, weight: q.Weight(k)}
		return h
	}
	q.flows = append(q.flows, flow[K, V]{key: k, weight: q.Weight(k)})
	return Flow(len(q.flows) - 1)
}

// Pop hands out the next item to start, its key, and what its key is
// charged for it, which Done is told back; ok is false when none is
// queued.
func (q *Queue[K, V]) Pop() (k K, v V, charge time.Duration, ok bool) {
	h, v, charge, ok := q.pop()
	if !ok {
		return k, v, 0, false
	}
	return q.flows[h].key, v, charge, true
}

// pop is Pop, naming the key by its flow.
func (q *Queue[K, V]) pop() (h Flow, v V, charge time.Duration, ok bool) {
	for q.ring.Len() > 0 {
		h = *q.ring.At(0)
		f := &q.flows[h]
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
			f.started++
			q.idle = 0
			if f.items.Len() == 0 {
				q.leave()
			}
			return h, v, charge, true
		}
		q.ring.PopFront()
		q.ring.PushBack(h)
		q.turn = false
		if q.idle++; q.idle >= q.ring.Len() {
			q.skip()
		}
	}
	return none, v, 0, false
}

// PopRun is Pop for up to most items at once: it appends to into the
// items of the key whose turn it is that its turn lets start, up to most,
// and returns them with the key, its Flow (for DoneFlow), and what it was
// charged for them in all (each item an estimate, as Pop charges it);
// into comes back as it was when none is queued.
func (q *Queue[K, V]) PopRun(most int, into []V) (k K, h Flow, items []V, charge time.Duration) {
	if most < 1 {
		return k, none, into, 0
	}
	h, v, c, ok := q.pop()
	if !ok {
		return k, none, into, 0
	}
	k = q.flows[h].key
	into = append(into, v)
	charge = c
	if q.ring.Len() == 0 || *q.ring.At(0) != h {
		return k, h, into, charge // its line emptied
	}
	f := &q.flows[h]
	m := min(most-1, f.items.Len())
	if c > 0 {
		m = min(m, int((f.credit+c-1)/c), int((q.left+c-1)/c))
	}
	if m <= 0 {
		return k, h, into, charge
	}
	for range m {
		into = append(into, f.items.PopFront())
	}
	q.n -= m
	f.credit -= time.Duration(m) * c
	q.left -= time.Duration(m) * c
	f.flight += m
	f.started += m
	charge += time.Duration(m) * c
	if f.items.Len() == 0 {
		q.leave()
	}
	return k, h, into, charge
}

// leave takes the first key of the ring, whose line emptied, out of it:
// it keeps a debt, but no credit, and its turn ends.
func (q *Queue[K, V]) leave() {
	h := q.ring.PopFront()
	f := &q.flows[h]
	f.credit = min(f.credit, 0)
	q.turn = false
	q.forget(f)
}

// skip gives every key of the ring at once the turns it would take for
// the first of them to have credit again, once a whole round started
// nothing: each key is credited as those turns would, so shares keep.
func (q *Queue[K, V]) skip() {
	turns := time.Duration(-1)
	for i := range q.ring.Len() {
		f := &q.flows[*q.ring.At(i)]
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
		f := &q.flows[*q.ring.At(i)]
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
	h, ok := q.index[k]
	if !ok {
		h = none
	}
	q.DoneFlow(h, n, charge, took)
}

// DoneFlow is DoneN for the key of flow h, as PopRun returned it with the
// items; a Flow that names no key with items in flight (none, or one
// whose key's items were all Done) corrects nothing but the mean of
// every key's items.
func (q *Queue[K, V]) DoneFlow(h Flow, n int, charge, took time.Duration) {
	if n < 1 {
		return
	}
	took = max(took, 0)
	each := took / time.Duration(n)
	for range n {
		q.cost.add(each)
	}
	if h < 0 || int(h) >= len(q.flows) || q.flows[h].dormant || q.flows[h].flight == 0 {
		return // not started here, or forgotten: nothing to correct
	}
	f := &q.flows[h]
	for range n {
		f.cost.add(each)
	}
	f.flight = max(f.flight-n, 0)
	f.credit += charge - took
	if f.items.Len() == 0 {
		f.credit = min(f.credit, 0)
		q.forget(f)
	}
}

// forget drops the accounts of f's key once its line is empty and nothing
// of it is in flight: its debt, if any, is forgiven, as deficit round
// robin forgives a flow that empties. The flow stays indexed, dormant,
// for the key's next item, until too many are.
func (q *Queue[K, V]) forget(f *flow[K, V]) {
	if f.items.Len() != 0 || f.flight != 0 || f.dormant {
		return
	}
	f.dormant = true
	q.dormant++
	if q.dormant > maxDormant+len(q.index)-q.dormant {
		q.sweep()
	}
}

// sweep drops the dormant flows from the index, keeping them for keys to
// come: a flood of one-off keys leaves a bounded number of accounts.
func (q *Queue[K, V]) sweep() {
	for k, h := range q.index {
		if f := &q.flows[h]; f.dormant {
			delete(q.index, k)
			var zero K
			f.key, f.dormant = zero, false
			f.items.Reset()
			q.free = append(q.free, h)
			if q.last == h {
				q.last = none
			}
		}
	}
	q.dormant = 0
	// Keep no more spare flows than maxDormant: the rest of the slab is
	// dropped once none past it is in use.
	q.shrink()
}

// shrink gives back the flows at the slab's end that no key uses, beyond
// maxDormant spare ones.
func (q *Queue[K, V]) shrink() {
	if len(q.free) <= maxDormant {
		return
	}
	used := make([]bool, len(q.flows))
	for _, h := range q.index {
		used[h] = true
	}
	end := len(q.flows)
	for end > 0 && !used[end-1] && len(q.flows)-end < len(q.free)-maxDormant {
		end--
	}
	clear(q.flows[end:])
	q.flows = q.flows[:end]
	free := q.free[:0]
	for _, h := range q.free {
		if int(h) < end {
			free = append(free, h)
		}
	}
	q.free = free
}

// Each calls fn for each key with items queued or in flight: its items
// queued, those started since it last had none queued or in flight, and
// its weight.
func (q *Queue[K, V]) Each(fn func(k K, queued, started, weight int)) {
	for k, h := range q.index {
		if f := &q.flows[h]; !f.dormant {
			fn(k, f.items.Len(), f.started, f.weight)
		}
	}
}

// Flows counts the keys whose accounts are kept: those with items queued
// or in flight.
func (q *Queue[K, V]) Flows() int { return len(q.index) - q.dormant }

// Clone returns a copy of q that shares no memory with it; the Flows of
// the one name the same keys in the other.
func (q *Queue[K, V]) Clone() *Queue[K, V] {
	c := *q
	c.weights = maps.Clone(q.weights)
	c.index = maps.Clone(q.index)
	c.flows = make([]flow[K, V], len(q.flows))
	for i := range q.flows {
		c.flows[i] = q.flows[i]
		c.flows[i].items = q.flows[i].items.Clone()
	}
	c.ring = q.ring.Clone()
	c.free = slices.Clone(q.free)
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
