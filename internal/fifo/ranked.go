package fifo

// Ranked is a sequence of values that is a value, for a queue whose values
// do not all arrive at its end, such as items waiting for an instant, kept
// in order of it: Insert places a value at any index, Search finds the
// index, Pop takes the first. Each returns a new Ranked and leaves the one
// it was called on as it was. The zero Ranked is empty.
//
// It is a balanced tree whose nodes never change once built (a treap,
// balanced by priorities drawn from a counter, so the same calls build the
// same tree): At, Search, Insert and Pop cost O(log n) time, and Insert and
// Pop allocate O(log n) small nodes. Versions share their unchanged nodes,
// and, as nothing shared is ever written, may be used from any goroutines.
type Ranked[T any] struct {
	root  *rnode[T]
	drawn uint64 // priorities drawn so far
}

// rnode is one node of a Ranked: its value, its subtrees, the values it
// holds with them and its priority, no lower than its children's.
type rnode[T any] struct {
	v           T
	left, right *rnode[T]
	n           int
	prio        uint64
}

// Len returns the number of values in r.
func (r Ranked[T]) Len() int { return r.root.size() }

// size is the number of values in the subtree t.
func (t *rnode[T]) size() int {
	if t == nil {
		return 0
	}
	return t.n
}

// At returns the i-th value of r, counted from the first, which is 0. It
// panics if i is out of range, as indexing a slice does.
func (r Ranked[T]) At(i int) T {
	if i < 0 || i >= r.Len() {
		panic("fifo: index out of range")
	}
	t := r.root
	for {
		switch l := t.left.size(); {
		case i < l:
			t = t.left
		case i == l:
			return t.v
		default:
			i -= l + 1
			t = t.right
		}
	}
}

// Search returns the least index i at which f(At(i)) is true, or Len if
// there is none, as sort.Search does: f must be false for the values up to
// some index and true from there on.
func (r Ranked[T]) Search(f func(T) bool) int {
	i, t := 0, r.root
	found := r.Len()
	for t != nil {
		if f(t.v) {
			found = i + t.left.size()
			t = t.left
		} else {
			i += t.left.size() + 1
			t = t.right
		}
	}
	return found
}

// Insert returns r with v placed at index i, so that At(i) is v; the values
// from i on move one place back. It panics if i is out of range [0, Len].
func (r Ranked[T]) Insert(i int, v T) Ranked[T] {
	if i < 0 || i > r.Len() {
		panic("fifo: index out of range")
	}
	r.drawn++
	leaf := &rnode[T]{v: v, n: 1, prio: mix(r.drawn)}
	a, b := split(r.root, i)
	r.root = merge(merge(a, leaf), b)
	return r
}

// Pop returns r's first value and r without it. It panics on an empty r.
func (r Ranked[T]) Pop() (T, Ranked[T]) {
	if r.root == nil {
		panic("fifo: index out of range")
	}
	var v T
	v, r.root = popFirst(r.root)
	return v, r
}

// popFirst returns the first value of t and a copy of t without it.
func popFirst[T any](t *rnode[T]) (T, *rnode[T]) {
	if t.left == nil {
		return t.v, t.right
	}
	c := *t
	var v T
	v, c.left = popFirst(t.left)
	c.n--
	return v, &c
}

// split returns the first k values of t and the rest, as two trees that
// share t's nodes but the ones on the path to the cut, which are copied.
func split[T any](t *rnode[T], k int) (*rnode[T], *rnode[T]) {
	if t == nil {
		return nil, nil
	}
	c := *t
	if k <= t.left.size() {
		var a *rnode[T]
		a, c.left = split(t.left, k)
		c.n = c.left.size() + c.right.size() + 1
		return a, &c
	}
	var b *rnode[T]
	c.right, b = split(t.right, k-t.left.size()-1)
	c.n = c.left.size() + c.right.size() + 1
	return &c, b
}

// merge returns the values of a then those of b as one tree, copying the
// nodes on the seam.
func merge[T any](a, b *rnode[T]) *rnode[T] {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.prio >= b.prio:
		c := *a
		c.right = merge(a.right, b)
		c.n = a.n + b.n
		return &c
	default:
		c := *b
		c.left = merge(a, b.left)
		c.n = a.n + b.n
		return &c
	}
}

// mix turns a counter into a priority that looks random (splitmix64).
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
