package remote

import "slices"

// deque is a double-ended queue on one slice: its values are buf[head:].
// Pushing at the back appends; popping at the front moves head, and once
// the popped prefix is as long as what is left, slides the rest down. So a
// deque reuses its memory, and costs no allocation once it has grown to
// its largest length.
type deque[T any] struct {
	buf  []T
	head int
}

// len counts the values.
func (d *deque[T]) len() int { return len(d.buf) - d.head }

// at returns the value at index i, from the front.
func (d *deque[T]) at(i int) *T { return &d.buf[d.head+i] }

// pushBack adds v at the back.
func (d *deque[T]) pushBack(v T) { d.buf = append(d.buf, v) }

// popFront removes the value at the front and returns it.
func (d *deque[T]) popFront() T {
	v := d.buf[d.head]
	var zero T
	d.buf[d.head] = zero
	d.head++
	switch n := d.len(); {
	case n == 0:
		d.buf, d.head = d.buf[:0], 0
	case d.head >= 16 && d.head >= n:
		copy(d.buf, d.buf[d.head:])
		clear(d.buf[n:])
		d.buf, d.head = d.buf[:n], 0
	}
	return v
}

// insert puts v at index i, from the front, moving the values after it.
func (d *deque[T]) insert(i int, v T) {
	if i == 0 && d.head > 0 {
		d.head--
		d.buf[d.head] = v
		return
	}
	d.buf = slices.Insert(d.buf, d.head+i, v)
}

// remove takes out the value at index i, from the front.
func (d *deque[T]) remove(i int) {
	if i == 0 {
		d.popFront()
		return
	}
	d.buf = slices.Delete(d.buf, d.head+i, d.head+i+1)
}

// reset removes every value, keeping the memory.
func (d *deque[T]) reset() {
	clear(d.buf)
	d.buf, d.head = d.buf[:0], 0
}

// clone returns a deque holding copies of d's values, sharing no memory.
func (d *deque[T]) clone() deque[T] {
	return deque[T]{buf: slices.Clone(d.buf[d.head:])}
}

// seqs is a deque of item Seqs kept in increasing order.
type seqs struct{ deque[uint64] }

// search returns the index of the first Seq at least seq.
func (q *seqs) search(seq uint64) int {
	lo, hi := 0, q.len()
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if *q.at(mid) < seq {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// add puts seq in its place.
func (q *seqs) add(seq uint64) {
	if n := q.len(); n == 0 || *q.at(n - 1) < seq {
		q.pushBack(seq)
		return
	}
	q.insert(q.search(seq), seq)
}

// drop takes seq out, if it is there.
func (q *seqs) drop(seq uint64) {
	if i := q.search(seq); i < q.len() && *q.at(i) == seq {
		q.remove(i)
	}
}
