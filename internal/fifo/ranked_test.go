package fifo

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRankedKeepsItsOrderAndEveryVersion(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 9))
	type version struct {
		r    Ranked[int]
		want []int
	}
	vs := []version{{}}
	for range 3000 {
		from := vs[rnd.IntN(len(vs))] // evolve any version kept, not only the newest
		var next version
		if from.r.Len() > 0 && rnd.IntN(3) == 0 {
			v, r := from.r.Pop()
			require.Equal(t, from.want[0], v)
			next = version{r, slices.Clone(from.want[1:])}
		} else {
			v := rnd.IntN(100)
			i := from.r.Search(func(x int) bool { return x > v })
			require.Equal(t, sort.Search(len(from.want), func(j int) bool { return from.want[j] > v }), i)
			next = version{from.r.Insert(i, v), slices.Insert(slices.Clone(from.want), i, v)}
		}
		vs = append(vs, next)
	}
	for _, v := range vs {
		require.Equal(t, len(v.want), v.r.Len())
		for i, w := range v.want {
			require.Equal(t, w, v.r.At(i))
		}
	}
}

func TestRankedStaysShallow(t *testing.T) {
	var r Ranked[int]
	for i := range 1 << 14 {
		r = r.Insert(r.Len(), i) // in order: the worst case of an unbalanced tree
	}
	assert.Less(t, depth(r.root), 64, "a tree of 16384 values should be about 2 log2 n deep")
	for i := range 1 << 13 {
		var v int
		v, r = r.Pop()
		require.Equal(t, i, v)
	}
	assert.Less(t, depth(r.root), 64)
}

func depth[T any](t *rnode[T]) int {
	if t == nil {
		return 0
	}
	return 1 + max(depth(t.left), depth(t.right))
}

func TestRankedPanicsOutOfRange(t *testing.T) {
	var r Ranked[int]
	assert.Panics(t, func() { r.At(0) })
	assert.Panics(t, func() { r.Pop() })
	assert.Panics(t, func() { r.Insert(1, 0) })
	assert.Equal(t, 0, r.Search(func(int) bool { return true }))
}
