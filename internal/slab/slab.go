// Package slab cuts the slices a driver hands values on in from larger
// ones, made now and then, so that the many small slices a driver such as
// package sim makes as it steps agents millions of times cost a fraction
// of an allocation each.
package slab

// Slab hands out slices cut from a larger slice, which it makes 256 values
// at a time, so that many small ones cost one allocation. Each slice is its
// own, never handed out again, so it may be kept; the larger slice is kept
// alive by any of them. Its zero value is empty. It is not safe for
// concurrent use.
type Slab[T any] struct {
	free []T
}

// slabLen is how many values a Slab makes room for at a time.
const slabLen = 256

// Cut returns an empty slice with room for n values, its own: appending
// more than n moves it elsewhere, and leaves the slab's other slices be.
func (s *Slab[T]) Cut(n int) []T {
	if len(s.free) < n {
		s.free = make([]T, max(n, slabLen))
	}
	out := s.free[:0:n]
	s.free = s.free[n:]
	return out
}
