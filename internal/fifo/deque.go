package fifo

// Deque is a double-ended queue on a ring: its values sit in a buffer
// whose length is a power of two, from index head on, wrapping around its
// end. Pushing at the back or popping at the front moves no other value;
// the buffer doubles when it is full. So a deque reuses its memory, and
// costs no allocation once it has grown to its largest length. Unlike
// Queue, it is changed in place: it is for state that is no value, such as
// a remote master's book or a worker's line. Its zero value is an empty
// deque.
type Deque[T any] struct {
	buf  []T // len(buf) is 0 or a power of two
	head int // the index in buf of the front value
	n    int // the values
}

// Len counts the values.
func (d *Deque[T]) Len() int { return d.n }

// At returns the value at index i, from the front. It panics if i is out
// of range, as indexing a slice does.
func (d *Deque[T]) At(i int) *T {
	if uint(i) >= uint(d.n) {
		panic("fifo: index out of range")
	}
	return &d.buf[(d.head+i)&(len(d.buf)-1)]
}

// PushBack adds v at the back.
func (d *Deque[T]) PushBack(v T) {
	if d.n == len(d.buf) {
		d.grow()
	}
	d.buf[(d.head+d.n)&(len(d.buf)-1)] = v
	d.n++
}

// PopFront removes the value at the front and returns it.
func (d *Deque[T]) PopFront() T {
	v := *d.At(0)
	d.DropFront()
	return v
}

// DropFront removes the value at the front, as PopFront does without
// copying it out. It panics on an empty deque.
func (d *Deque[T]) DropFront() {
	if d.n == 0 {
		panic("fifo: index out of range")
	}
	var zero T
	d.buf[d.head] = zero
	d.head = (d.head + 1) & (len(d.buf) - 1)
	d.n--
}

// Insert puts v at index i, from the front, moving the values before it
// one place to the front or those after it one place to the back,
// whichever are fewer.
func (d *Deque[T]) Insert(i int, v T) {
	if i < 0 || i > d.n {
		panic("fifo: index out of range")
	}
	if d.n == len(d.buf) {
		d.grow()
	}
	mask := len(d.buf) - 1
	if i < d.n/2 {
		d.head = (d.head - 1) & mask
		for k := 0; k < i; k++ {
			d.buf[(d.head+k)&mask] = d.buf[(d.head+k+1)&mask]
		}
	} else {
		for k := d.n; k > i; k-- {
			d.buf[(d.head+k)&mask] = d.buf[(d.head+k-1)&mask]
		}
	}
	d.buf[(d.head+i)&mask] = v
	d.n++
}

// Remove takes out the value at index i, from the front, moving the values
// before it one place to the back or those after it one place to the
// front, whichever are fewer.
func (d *Deque[T]) Remove(i int) {
	if uint(i) >= uint(d.n) {
		panic("fifo: index out of range")
	}
	mask := len(d.buf) - 1
	var zero T
	if i < d.n/2 {
		for k := i; k > 0; k-- {
			d.buf[(d.head+k)&mask] = d.buf[(d.head+k-1)&mask]
		}
		d.buf[d.head] = zero
		d.head = (d.head + 1) & mask
	} else {
		for k := i; k < d.n-1; k++ {
			d.buf[(d.head+k)&mask] = d.buf[(d.head+k+1)&mask]
		}
		d.buf[(d.head+d.n-1)&mask] = zero
	}
	d.n--
}

// Reset removes every value, keeping the memory.
func (d *Deque[T]) Reset() {
	front, back := d.parts()
	clear(front)
	clear(back)
	d.head, d.n = 0, 0
}

// Clone returns a deque holding copies of d's values, sharing no memory.
func (d *Deque[T]) Clone() Deque[T] {
	if d.n == 0 {
		return Deque[T]{}
	}
	return Deque[T]{buf: d.copied(ringSize(d.n)), n: d.n}
}

// parts returns the values, front first, as the two stretches of buf they
// fill: the second is empty unless they wrap around its end.
func (d *Deque[T]) parts() (front, back []T) {
	if end := d.head + d.n; end <= len(d.buf) {
		return d.buf[d.head:end], nil
	}
	return d.buf[d.head:], d.buf[:d.head+d.n-len(d.buf)]
}

// grow doubles the buffer, at least 8 values long, its values moved to its
// start.
func (d *Deque[T]) grow() {
	d.buf, d.head = d.copied(max(2*len(d.buf), 8)), 0
}

// copied returns a buffer of size values (a power of two, at least Len)
// holding d's values from its start.
func (d *Deque[T]) copied(size int) []T {
	buf := make([]T, size)
	front, back := d.parts()
	copy(buf[copy(buf, front):], back)
	return buf
}

// ringSize returns the least power of two at least n, and at least 8.
func ringSize(n int) int {
	size := 8
	for size < n {
		size *= 2
	}
	return size
}
