package fifo

import "iter"

// Numbered is a mutable map from numbered places to values, for places
// close to one another, as a queue's are: the array-backed table under
// [Slots], without its versions, for one owner that changes it in place. A
// read or a change is one array access for most places, not a hash map's
// probe. The zero Numbered is empty and ready to use; it must not be
// copied once used.
type Numbered[V any] struct {
	t table[V]
}

// Len returns the number of values held.
func (n *Numbered[V]) Len() int { return n.t.n }

// Get returns the value at place k, and whether there is one.
func (n *Numbered[V]) Get(k uint64) (V, bool) {
	if n.t.cells == nil {
		var zero V
		return zero, false
	}
	return n.t.get(k)
}

// Put puts v at place k, in place of any value there.
func (n *Numbered[V]) Put(k uint64, v V) {
	if n.t.cells == nil {
		n.t.cells = make([]cell[V], 8)
	}
	n.t.set(k, v)
}

// Delete removes the value at place k, and returns it, if there was one.
func (n *Numbered[V]) Delete(k uint64) (V, bool) {
	if n.t.cells == nil {
		var zero V
		return zero, false
	}
	return n.t.del(k)
}

// Clear removes every value, keeping the room it has.
func (n *Numbered[V]) Clear() {
	clear(n.t.cells)
	n.t.far, n.t.n = nil, 0
}

// All yields each place and its value, in no particular order. The
// Numbered must not change while it runs.
func (n *Numbered[V]) All() iter.Seq2[uint64, V] {
	return func(yield func(uint64, V) bool) {
		for i := range n.t.cells {
			if c := &n.t.cells[i]; !c.empty() && !yield(c.key(), c.val) {
				return
			}
		}
		for k, v := range n.t.far {
			if !yield(k, v) {
				return
			}
		}
	}
}
