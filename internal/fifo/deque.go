package fifo

import "slices"

// Deque is a double-ended queue on one slice: its values are buf[head:].
// Pushing at the back appends; popping at the front moves head, and once
// the popped prefix is as long as what is left, slides the rest down. So a
// deque reuses its memory, and costs no allocation once it has grown to
// its largest length. Unlike Queue, it is changed in place: it is for
// state that is no value, such as a remote master's book or a worker's
// line. Its zero value is an empty deque.
type Deque[T any] struct {
	buf  []T
	head int
}

// Len counts the values.
func (d *Deque[T]) Len() int { return len(d.buf) - d.head }

// At returns the value at index i, from the front.
func (d *Deque[T]) At(i int) *T { return &d.buf[d.head+i] }

// PushBack adds v at the back.
func (d *Deque[T]) PushBack(v T) { d.buf = append(d.buf, v) }

// PopFront removes the value at the front and returns it.
func (d *Deque[T]) PopFront() T {
	v := d.buf[d.head]
	var zero T
	d.buf[d.head] = zero
	d.head++
	switch n := d.Len(); {
	case n == 0:
		d.buf, d.head = d.buf[:0], 0
	case d.head >= 16 && d.head >= n:
		copy(d.buf, d.buf[d.head:])
		clear(d.buf[n:])
		d.buf, d.head = d.buf[:n], 0
	}
	return v
}

// Insert puts v at index i, from the front, moving the values after it.
func (d *Deque[T]) Insert(i int, v T) {
	if i == 0 && d.head > 0 {
		d.head--
		d.buf[d.head] = v
		return
	}
	d.buf = slices.Insert(d.buf, d.head+i, v)
}

// Remove takes out the value at index i, from the front.
func (d *Deque[T]) Remove(i int) {
	if i == 0 {
		d.PopFront()
		return
	}
	d.buf = slices.Delete(d.buf, d.head+i, d.head+i+1)
}

// Reset removes every value, keeping the memory.
func (d *Deque[T]) Reset() {
	clear(d.buf)
	d.buf, d.head = d.buf[:0], 0
}

// Clone returns a deque holding copies of d's values, sharing no memory.
func (d *Deque[T]) Clone() Deque[T] {
	return Deque[T]{buf: slices.Clone(d.buf[d.head:])}
}
