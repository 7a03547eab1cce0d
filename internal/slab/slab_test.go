package slab_test

import (
	"testing"

	"github.com/evolvekit/evolve/internal/slab"
	"github.com/stretchr/testify/assert"
)

// The slices a Slab cuts are each their own, with no room beyond.
func TestASlabCutsSlicesOfTheirOwn(t *testing.T) {
	var s slab.Slab[int]
	a := append(s.Cut(2), 1, 2)
	b := append(s.Cut(3), 3, 4, 5)
	assert.Equal(t, []int{1, 2}, a)
	assert.Equal(t, []int{3, 4, 5}, b)
	assert.Equal(t, 2, cap(a))
	a = append(a, 9) // past its room: moved, b untouched
	assert.Equal(t, []int{1, 2, 9}, a)
	assert.Equal(t, []int{3, 4, 5}, b)
	big := s.Cut(1000)
	assert.Equal(t, 1000, cap(big))
}

func TestASlabAllocatesOnceEvery256(t *testing.T) {
	var s slab.Slab[int]
	s.Cut(1)
	allocs := testing.AllocsPerRun(1000, func() { _ = append(s.Cut(1), 1) })
	assert.Less(t, allocs, 0.1)
}
