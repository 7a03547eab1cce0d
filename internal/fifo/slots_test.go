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

// TestOwnedSlotsChangeInPlace runs random changes on owned Slots against a
// Go map: they hold what the map holds, and a change allocates nothing
// once the table has grown.
func TestOwnedSlotsChangeInPlace(t *testing.T) {
	s := Slots[int]{}.Put(0, 0).Owned()
	want := map[uint64]int{0: 0}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 20_000 {
		k := uint64(r.IntN(64))
		if r.IntN(2) == 0 {
			s = s.Put(k, i)
			want[k] = i
		} else {
			v, ok, rest := s.Take(k)
			w, had := want[k]
			require.Equal(t, had, ok, "Take(%d)", k)
			require.Equal(t, w, v, "Take(%d)", k)
			s = rest
			delete(want, k)
		}
		require.Equal(t, len(want), s.Len())
	}
	for k, w := range want {
		v, ok := s.Get(k)
		require.True(t, ok)
		require.Equal(t, w, v)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		s = s.Put(7, 1)
		_, _, s = s.Take(7)
	})
	assert.Zero(t, allocs, "allocations per change of owned Slots")
}

// TestOwnedSlotsMoveTheMapFirst makes owned Slots of a version that is not
// the newest: they hold that version's values, not the newest's.
func TestOwnedSlotsMoveTheMapFirst(t *testing.T) {
	base := Slots[int]{}.Put(1, 10)
	_ = base.Put(2, 20) // the newest version
	own := base.Owned().Put(3, 30)
	_, ok := own.Get(2)
	assert.False(t, ok, "the newest version's value shows in owned Slots of an older one")
	v, ok := own.Get(3)
	assert.True(t, ok)
	assert.Equal(t, 30, v)
	assert.Equal(t, 2, own.Len())
}
