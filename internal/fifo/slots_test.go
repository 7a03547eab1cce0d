package fifo

import (
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSlotsPutGetTake(t *testing.T) {
	var s Slots[string]
	_, ok := s.Get(3)
	assert.False(t, ok)
	s = s.Put(3, "c").Put(1, "a").Put(3, "C")
	assert.Equal(t, 2, s.Len())
	v, ok := s.Get(3)
	assert.True(t, ok)
	assert.Equal(t, "C", v)
	v, ok, rest := s.Take(1)
	assert.True(t, ok)
	assert.Equal(t, "a", v)
	assert.Equal(t, 1, rest.Len())
	_, ok, same := rest.Take(1)
	assert.False(t, ok)
	assert.Equal(t, 1, same.Len())
}

func TestSlotsAreValues(t *testing.T) {
	base := Slots[int]{}.Put(1, 10).Put(2, 20)
	left := base.Put(3, 30)
	_, _, right := base.Take(1)
	right = right.Put(1, 11)
	for _, c := range []struct {
		s    Slots[int]
		want map[uint64]int
	}{
		{base, map[uint64]int{1: 10, 2: 20}},
		{left, map[uint64]int{1: 10, 2: 20, 3: 30}},
		{right, map[uint64]int{1: 11, 2: 20}},
		{base, map[uint64]int{1: 10, 2: 20}},
	} {
		assert.Equal(t, c.want, contents(c.s))
	}
}

// contents reads every place up to 16.
func contents(s Slots[int]) map[uint64]int {
	out := map[uint64]int{}
	for k := range uint64(16) {
		if v, ok := s.Get(k); ok {
			out[k] = v
		}
	}
	return out
}

// TestSlotsMatchAMapCopiedPerVersion changes and reads versions picked at
// random among all those made, against a map copied for each version.
func TestSlotsMatchAMapCopiedPerVersion(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	versions := []Slots[int]{{}}
	models := []map[uint64]int{{}}
	for i := range 5000 {
		j := len(versions) - 1
		if r.IntN(4) == 0 {
			j = r.IntN(len(versions))
		}
		s, want := versions[j], maps.Clone(models[j])
		k := uint64(r.IntN(12))
		if r.IntN(2) == 0 {
			s = s.Put(k, i)
			want[k] = i
		} else {
			v, ok, next := s.Take(k)
			w, had := want[k]
			require.Equal(t, had, ok)
			require.Equal(t, w, v)
			delete(want, k)
			s = next
		}
		require.Equal(t, len(want), s.Len())
		versions, models = append(versions, s), append(models, want)
		if probe := r.IntN(len(versions)); r.IntN(3) == 0 {
			require.Equal(t, models[probe], contents(versions[probe]), "version %d", probe)
		}
	}
	for i := range versions {
		require.Equal(t, models[i], contents(versions[i]), "version %d", i)
	}
}

func TestSlotsChangeTheNewestVersionInOneAllocation(t *testing.T) {
	s := Slots[int]{}
	for k := range uint64(1000) {
		s = s.Put(k, int(k))
	}
	k := uint64(0)
	allocs := testing.AllocsPerRun(100, func() {
		_, _, s = s.Take(k)
		s = s.Put(k+1000, 1)
		k++
	})
	assert.Equal(t, 2.0, allocs)
}
