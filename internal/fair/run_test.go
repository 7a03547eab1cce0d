package fair

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestPopRunHandsOutWhatPopWould fills random queues, then empties one
// copy with PopRun of random sizes, and another with as many Pops a run,
// told the same Dones after each run: the items come out in the same
// order, each key charged the same.
func TestPopRunHandsOutWhatPopWould(t *testing.T) {
	longest := 0
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 7))
		a, err := New[int, int](time.Duration(1+r.IntN(5)) * time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		keys := 1 + r.IntN(6)
		for k := range keys {
			if err := a.SetWeight(k, 1+r.IntN(4)); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 50 + r.IntN(300) {
			a.Push(r.IntN(keys), i)
		}
		b := a.Clone()
		costs := make([]time.Duration, keys)
		for k := range costs {
			costs[k] = time.Duration(1+r.IntN(3000)) * time.Microsecond
		}
		var one, run []int
		var charged [2][]time.Duration
		charged[0], charged[1] = make([]time.Duration, keys), make([]time.Duration, keys)
		var sizes []int
		for b.Len() > 0 {
			k, h, vs, c := b.PopRun(1+r.IntN(8), nil)
			if len(vs) == 0 {
				t.Fatalf("seed %d: PopRun found none of %d", seed, b.Len())
			}
			run = append(run, vs...)
			sizes = append(sizes, len(vs))
			longest = max(longest, len(vs))
			charged[1][k] += c
			b.DoneFlow(h, len(vs), c, time.Duration(len(vs))*costs[k])
		}
		// Pop the same runs, one item at a time, and tell their Dones
		// where PopRun's were told.
		for _, n := range sizes {
			type popped struct {
				k int
				c time.Duration
			}
			var ps []popped
			for range n {
				k, v, c, ok := a.Pop()
				if !ok {
					t.Fatalf("seed %d: Pop found none of %d", seed, a.Len())
				}
				one = append(one, v)
				charged[0][k] += c
				ps = append(ps, popped{k, c})
			}
			for _, p := range ps {
				a.Done(p.k, p.c, costs[p.k])
			}
		}
		if len(one) != len(run) {
			t.Fatalf("seed %d: %d items by Pop, %d by PopRun", seed, len(one), len(run))
		}
		for i := range one {
			if one[i] != run[i] {
				t.Fatalf("seed %d: item %d is %d by Pop, %d by PopRun", seed, i, one[i], run[i])
			}
		}
		for k := range keys {
			if charged[0][k] != charged[1][k] {
				t.Fatalf("seed %d: key %d charged %v by Pop, %v by PopRun", seed, k, charged[0][k], charged[1][k])
			}
		}
	}
	if longest < 8 {
		t.Fatalf("no run took more than %d items: nothing was taken at once", longest)
	}
}
