package slab_test

import (
	"fmt"

	"github.com/evolvekit/evolve/internal/slab"
)

// A driver cuts each batch it hands on from the slab: three batches, one
// allocation.
func Example() {
	var s slab.Slab[int]
	var batches [][]int
	for i := range 3 {
		batches = append(batches, append(s.Cut(2), i, 10*i))
	}
	fmt.Println(batches)
	// Output: [[0 0] [1 10] [2 20]]
}
