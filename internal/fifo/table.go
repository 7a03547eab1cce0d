package fifo

// table is the mutable map from places to values under a [Slots]. The
// places a queue's values take are numbers close to one another, so most
// find their own cell of an array, at the place modulo its length, and are
// found with one read, with neither hashing nor probing; a place whose cell
// another place holds goes to a Go map. The array doubles when it is half
// full, or when the map holds an eighth as many values as it has cells,
// while it has no more than 8 cells a value.
type table[V any] struct {
	cells []cell[V] // a power of two of them
	far   map[uint64]V
	n     int // values held, in cells and far
}

// cell is one cell of a table: the place it holds, plus one (0 for none),
// and its value. With no flag of its own beside the value, a cell of a
// 56-byte value fills one cache line. The last place, whose mark would be
// 0, always goes to the map.
type cell[V any] struct {
	mark uint64
	val  V
}

// lastPlace is the one place no cell holds.
const lastPlace = ^uint64(0)

// holds reports whether the cell holds place k.
func (c *cell[V]) holds(k uint64) bool { return c.mark == k+1 && k != lastPlace }

// empty reports whether the cell holds no place.
func (c *cell[V]) empty() bool { return c.mark == 0 }

// key returns the place the cell holds, which it must.
func (c *cell[V]) key() uint64 { return c.mark - 1 }

// newTable returns an empty table.
func newTable[V any]() *table[V] {
	return &table[V]{cells: make([]cell[V], 8)}
}

// get returns the value at place k, and whether there is one.
func (t *table[V]) get(k uint64) (V, bool) {
	if c := &t.cells[k&uint64(len(t.cells)-1)]; c.holds(k) {
		return c.val, true
	}
	v, ok := t.far[k] // a nil map holds nothing
	return v, ok
}

// set puts v at place k, and returns the value it replaced, if had.
func (t *table[V]) set(k uint64, v V) (old V, had bool) {
	c := &t.cells[k&uint64(len(t.cells)-1)]
	switch {
	case c.holds(k):
		old, c.val = c.val, v
		return old, true
	case t.far != nil:
		if old, had = t.far[k]; had {
			t.far[k] = v
			return old, true
		}
	}
	t.n++
	if c.empty() && k != lastPlace {
		*c = cell[V]{mark: k + 1, val: v}
	} else {
		if t.far == nil {
			t.far = make(map[uint64]V)
		}
		t.far[k] = v
	}
	if t.n > len(t.cells)/2 || len(t.far) > len(t.cells)/8 && len(t.cells) <= 8*t.n {
		t.grow()
	}
	return old, false
}

// del removes the value at place k, and returns it, if had.
func (t *table[V]) del(k uint64) (old V, had bool) {
	c := &t.cells[k&uint64(len(t.cells)-1)]
	if c.holds(k) {
		old = c.val
		*c = cell[V]{} // let go of what the value holds
		t.n--
		return old, true
	}
	if old, had = t.far[k]; had {
		delete(t.far, k)
		t.n--
		if len(t.far) == 0 {
			t.far = nil
		}
	}
	return old, had
}

// grow doubles the cells and places every value again.
func (t *table[V]) grow() {
	cells, far := t.cells, t.far
	t.cells, t.far, t.n = make([]cell[V], 2*len(cells)), nil, 0
	for i := range cells {
		if c := &cells[i]; !c.empty() {
			t.place(c.key(), c.val)
		}
	}
	for k, v := range far {
		t.place(k, v)
	}
}

// place puts v at place k, which holds nothing, without growing.
func (t *table[V]) place(k uint64, v V) {
	t.n++
	c := &t.cells[k&uint64(len(t.cells)-1)]
	if c.empty() && k != lastPlace {
		*c = cell[V]{mark: k + 1, val: v}
		return
	}
	if t.far == nil {
		t.far = make(map[uint64]V)
	}
	t.far[k] = v
}
