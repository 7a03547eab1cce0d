// Package fifo holds containers that are values, for agent states that must
// not change when they are evolved: [Queue], a first-in, first-out queue;
// [Slots], a map from numbered places to values, for what arrives or leaves
// a queue out of order; and [Ranked], a sequence with insertion anywhere,
// for a queue kept in order of something other than arrival. A new version
// of a Queue or Slots costs O(1) time (amortized, for a Queue), of a Ranked
// O(log n), whatever it holds.
package fifo

// Queue is a first-in, first-out queue that is a value: Push, Pop, Insert
// and Take return a new Queue and leave the one they were called on as it
// was, so a state that holds one stays valid after evolve, and two states
// evolved from it do not see each other's changes. The zero Queue is empty.
//
// The versions of a queue share one array. A version whose last value is
// the array's last pushes in place; any other version copies its values to
// a new array first. So a queue used as a queue, each version pushed on at
// most once, costs O(1) amortized time and no allocation per value. Popped
// values stay in the array, out of reach of the version that popped them,
// until a push finds the array full with most of it popped, and copies what
// is left to a new one rather than the whole array to a larger one. Insert away from the end copies the whole queue: for values that
// arrive out of order, use Slots.
//
// Because they share the array, two versions of one queue must not be pushed
// on from two goroutines at once. An agent's state is evolved on one
// goroutine at a time, so an evolve function may hold one freely.
type Queue[T any] struct {
	s    *store[T] // nil for a queue that never held a value
	head int       // the index in s.items of this version's first value
	n    int       // this version's length
}

// store is the array the versions of one queue share. Only the version
// whose end is len(items) may append to it.
type store[T any] struct {
	items []T
}

// Len returns the number of values in q.
func (q Queue[T]) Len() int { return q.n }

// At returns the i-th value of q, counted from the oldest, which is 0. It
// panics if i is out of range, as indexing a slice does.
func (q Queue[T]) At(i int) T {
	if i < 0 || i >= q.n {
		panic("fifo: index out of range")
	}
	return q.s.items[q.head+i]
}

// Push returns q with v added after its newest value.
func (q Queue[T]) Push(v T) Queue[T] {
	if q.s == nil || q.head+q.n != len(q.s.items) || q.spent(1) {
		q = q.copied(1)
	}
	q.s.items = append(q.s.items, v)
	q.n++
	return q
}

// PushAll returns q with vs added after its newest value, in order: what
// Push does for each, with one check and one append.
func (q Queue[T]) PushAll(vs ...T) Queue[T] {
	if len(vs) == 0 {
		return q
	}
	if q.s == nil || q.head+q.n != len(q.s.items) || q.spent(len(vs)) {
		q = q.copied(len(vs))
	}
	q.s.items = append(q.s.items, vs...)
	q.n += len(vs)
	return q
}

// Pop returns q's oldest value and q without it. It panics on an empty
// queue.
func (q Queue[T]) Pop() (T, Queue[T]) {
	v := q.At(0)
	q.head++
	q.n--
	return v, q
}

// Insert returns q with vs placed from index i on, so that At(i) is vs[0];
// the values from i on move len(vs) places back. Inserting at Len is
// pushing each value in turn.
func (q Queue[T]) Insert(i int, vs ...T) Queue[T] {
	if i == q.n {
		return q.PushAll(vs...)
	}
	if i < 0 || i > q.n {
		panic("fifo: index out of range")
	}
	out := make([]T, 0, max(2*(q.n+len(vs)), 8))
	out = append(out, q.s.items[q.head:q.head+i]...)
	out = append(out, vs...)
	out = append(out, q.s.items[q.head+i:q.head+q.n]...)
	return Queue[T]{s: &store[T]{items: out}, n: q.n + len(vs)}
}

// Take returns q's k oldest values, and q without them. The slice is a
// view of the array the versions of q share, not a copy: a value once in
// the array is never written again, so the view holds its values for as
// long as it is kept (and keeps the array alive as long). Its capacity
// ends at its length, so an append to it copies; writing to its values
// changes those every version of q sees, and must not be done. It panics
// if k is negative or more than Len.
func (q Queue[T]) Take(k int) ([]T, Queue[T]) {
	if k < 0 || k > q.n {
		panic("fifo: index out of range")
	}
	if k == 0 {
		return []T{}, q
	}
	out := q.s.items[q.head : q.head+k : q.head+k]
	q.head += k
	q.n -= k
	return out, q
}

// Drop returns q without its k oldest values, as Take does without
// copying them out; a queue left empty lets go of its array. It panics if
// k is negative or more than Len.
func (q Queue[T]) Drop(k int) Queue[T] {
	if k < 0 || k > q.n {
		panic("fifo: index out of range")
	}
	if k == q.n {
		return Queue[T]{}
	}
	q.head += k
	q.n -= k
	return q
}

// spent reports whether pushing extra values on q, which ends where its
// array does, would grow the array while most of it has been popped: its
// values then go to a new array, not the whole array to a larger one.
func (q Queue[T]) spent(extra int) bool {
	return len(q.s.items)+extra > cap(q.s.items) && q.head >= q.n
}

// minArray is the least room a new array has: a queue that holds a value
// or two at a time, pushed and popped, takes a new array once in 15 pushes.
const minArray = 16

// copied returns q on a new array of its own, with room for extra more
// values.
func (q Queue[T]) copied(extra int) Queue[T] {
	items := make([]T, q.n, max(2*(q.n+extra), minArray))
	if q.s != nil {
		copy(items, q.s.items[q.head:q.head+q.n])
	}
	return Queue[T]{s: &store[T]{items: items}, n: q.n}
}

// Values returns a new slice holding q's values, oldest first.
func (q Queue[T]) Values() []T {
	if q.n == 0 {
		return nil
	}
	return append([]T(nil), q.s.items[q.head:q.head+q.n]...)
}
