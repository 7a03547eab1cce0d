// Package fifo is a first-in, first-out queue that is a value, for agent
// states that must not change when they are evolved.
package fifo

// Queue is a first-in, first-out queue that is a value: Push and Pop return a
// new Queue and leave the one they were called on as it was, so a state that
// holds one stays valid after evolve. It is the banker's queue: pushes go on
// the front of one linked list, pops come off another, and the first list is
// reversed into the second when that runs dry, so each value costs O(1) time
// amortized and two small allocations. The zero Queue is empty.
type Queue[T any] struct {
	front *link[T] // popped from, oldest first
	back  *link[T] // pushed onto, newest first
	n     int
}

// link is one cell of a linked list. Links are never changed once made.
type link[T any] struct {
	v    T
	next *link[T]
}

// Len returns the number of values in q.
func (q Queue[T]) Len() int { return q.n }

// Push returns q with v added at the end.
func (q Queue[T]) Push(v T) Queue[T] {
	q.back = &link[T]{v: v, next: q.back}
	q.n++
	return q
}

// Pop returns the oldest value of q and q without it. q must not be empty.
func (q Queue[T]) Pop() (T, Queue[T]) {
	if q.front == nil {
		q.front, q.back = reversed(q.back), nil
	}
	v := q.front.v
	q.front = q.front.next
	q.n--
	return v, q
}

// reversed returns a new list holding the values of l in reverse order.
func reversed[T any](l *link[T]) *link[T] {
	var r *link[T]
	for ; l != nil; l = l.next {
		r = &link[T]{v: l.v, next: r}
	}
	return r
}
