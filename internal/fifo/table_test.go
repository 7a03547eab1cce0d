package fifo

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTableMatchesAMapForNearAndFarPlaces(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	tb, want := newTable[int](), map[uint64]int{}
	next := uint64(0)
	for i := range 20000 {
		var k uint64
		switch rnd.IntN(4) {
		case 0: // far from the others, sharing cells with them
			k = next + uint64(rnd.IntN(8))<<20
		case 1: // one already there, or near
			k = next - uint64(rnd.IntN(64))
		default: // the next of a queue
			next++
			k = next
		}
		if rnd.IntN(2) == 0 {
			old, had := tb.del(k)
			w, wok := want[k]
			require.Equal(t, wok, had, "del %d", k)
			require.Equal(t, w, old)
			delete(want, k)
		} else {
			old, had := tb.set(k, i)
			w, wok := want[k]
			require.Equal(t, wok, had, "set %d", k)
			require.Equal(t, w, old)
			want[k] = i
		}
		require.Equal(t, len(want), tb.n)
	}
	for k, w := range want {
		v, ok := tb.get(k)
		require.True(t, ok, "get %d", k)
		require.Equal(t, w, v)
	}
	_, ok := tb.get(next + 1)
	require.False(t, ok)
}
