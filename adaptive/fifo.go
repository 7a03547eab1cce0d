package adaptive

// fifo is a first-in, first-out queue that is a value: push and pop return a
// new fifo and leave the one they were called on as it was, so a State that
// holds one stays valid after Evolve. It is the banker's queue: pushes go on
// the front of one linked list, pops come off another, and the first list is
// reversed into the second when that runs dry. The zero fifo is empty.
type fifo[T any] struct {
	front *link[T] // popped from, oldest first
	back  *link[T] // pushed onto, newest first
	n     int
}

// link is one cell of a linked list. Links are never changed once made.
type link[T any] struct {
	v    T
	next *link[T]
}

// push returns q with v added at the end.
func (q fifo[T]) push(v T) fifo[T] {
	q.back = &link[T]{v: v, next: q.back}
	q.n++
	return q
}

// pop returns the oldest value of q and q without it; the zero T and q
// itself when q is empty.
func (q fifo[T]) pop() (T, fifo[T]) {
	if q.n == 0 {
		var zero T
		return zero, q
	}
	if q.front == nil {
		for l := q.back; l != nil; l = l.next {
			q.front = &link[T]{v: l.v, next: q.front}
		}
		q.back = nil
	}
	v := q.front.v
	q.front = q.front.next
	q.n--
	return v, q
}
