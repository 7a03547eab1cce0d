package sim

// ordered is an element of a binary min-heap: before reports whether it
// comes before another.
type ordered[T any] interface {
	*T
	before(*T) bool
}

// heapPush adds e to the binary min-heap h and returns h.
func heapPush[T any, P ordered[T]](h []T, e T) []T {
	h = append(h, e)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !P(&h[i]).before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return h
}

// heapPop removes the first element of the binary min-heap h, which must
// not be empty, and returns it and h.
func heapPop[T any, P ordered[T]](h []T) (T, []T) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	var zero T
	h[last] = zero // let go of what it holds
	h = h[:last]
	for i := 0; ; {
		l := 2*i + 1
		if l >= last {
			break
		}
		m := l
		if r := l + 1; r < last && P(&h[r]).before(&h[l]) {
			m = r
		}
		if !P(&h[m]).before(&h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	return top, h
}
