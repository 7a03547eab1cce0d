package budget_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/evolvekit/evolve/internal/budget"
)

// randomDemands returns k stages with random queues and service times, a
// few with an empty queue or an unknown service time, and some equal to
// the one before, so that ties happen.
func randomDemands(r *rand.Rand, k int) []budget.Demand {
	ds := make([]budget.Demand, k)
	for i := range ds {
		switch r.IntN(5) {
		case 0:
			ds[i] = budget.Demand{Service: time.Duration(r.IntN(1000)) * time.Microsecond}
		case 1:
			ds[i] = budget.Demand{Queued: r.IntN(100)}
		case 2:
			if i > 0 {
				ds[i] = ds[i-1]
				continue
			}
			fallthrough
		default:
			ds[i] = budget.Demand{Queued: r.IntN(100), Service: time.Duration(1+r.IntN(1000)) * time.Microsecond}
		}
	}
	return ds
}

// TestAllocateKeepsItsPromises checks, on seeded random demands, that the
// workers add up to n with at least one each; that each worker beyond the
// first went where the rule says (no stage's last quotient is below
// another's next one: D'Hondt's defining inequality, over the workers
// beyond each stage's own); that one more worker
// takes none from any stage (house monotony); and that a stage whose queue
// or service time grows, the others' alike, gets no fewer workers.
func TestAllocateKeepsItsPromises(t *testing.T) {
	for seed := range uint64(3000) {
		r := rand.New(rand.NewPCG(seed, 7))
		k := 1 + r.IntN(6)
		n := k + r.IntN(40)
		ds := randomDemands(r, k)
		got := budget.Allocate(n, ds)
		sum := 0
		for i, a := range got {
			sum += a
			if a < 1 {
				t.Fatalf("seed %d: stage %d of %v got %d workers: %v", seed, i, ds, a, got)
			}
		}
		if sum != n {
			t.Fatalf("seed %d: %v shares %d workers as %v, %d in all", seed, ds, n, got, sum)
		}
		checkQuotients(t, seed, ds, got)
		more := budget.Allocate(n+1, ds)
		for i := range got {
			if more[i] < got[i] {
				t.Fatalf("seed %d: %v: %d workers give %v, one more gives %v", seed, ds, n, got, more)
			}
		}
		i := r.IntN(k)
		heavier := slices.Clone(ds)
		if r.IntN(2) == 0 || heavier[i].Service == 0 {
			heavier[i].Queued += 1 + r.IntN(50)
		} else {
			heavier[i].Service += time.Duration(1+r.IntN(1000)) * time.Microsecond
		}
		if known(ds) != known(heavier) {
			continue // an unknown service time became known: the others' weights change too
		}
		if after := budget.Allocate(n, heavier)[i]; after < got[i] {
			t.Fatalf("seed %d: stage %d of %v gets %d workers, %d once its demand grows to %v", seed, i, ds, got[i], after, heavier[i])
		}
	}
}

// known counts the service times known.
func known(ds []budget.Demand) int {
	n := 0
	for _, d := range ds {
		if d.Service > 0 {
			n++
		}
	}
	return n
}

// checkQuotients checks D'Hondt's inequality over the workers beyond each
// stage's own: a stage's last such worker came at a quotient,
// weight / (workers - 1), no lower than any stage's next one,
// weight / workers.
func checkQuotients(t *testing.T, seed uint64, ds []budget.Demand, got []int) {
	t.Helper()
	w := weightsOf(ds)
	for i := range ds {
		if got[i] < 2 {
			continue
		}
		for j := range ds {
			if w[i]*float64(got[j]) < w[j]*float64(got[i]-1) {
				t.Fatalf("seed %d: %v gets %v, yet stage %d's last quotient %v is below stage %d's next %v",
					seed, ds, got, i, w[i]/float64(got[i]-1), j, w[j]/float64(got[j]))
			}
		}
	}
}

// weightsOf is the weights Allocate's doc describes, written out again.
func weightsOf(ds []budget.Demand) []float64 {
	var sum float64
	for _, d := range ds {
		sum += float64(d.Service)
	}
	prior := 1.0
	if n := known(ds); n > 0 {
		prior = sum / float64(n)
	}
	w := make([]float64, len(ds))
	for i, d := range ds {
		s := float64(d.Service)
		if s == 0 {
			s = prior
		}
		w[i] = float64(d.Queued) * s
	}
	return w
}

func TestAllocateIsDeterministicAndOrderFree(t *testing.T) {
	// Stages with distinct demands get the same workers whatever their
	// order; equal ones split them evenly, the earlier first.
	ds := []budget.Demand{{10, 3 * time.Millisecond}, {40, time.Millisecond}, {5, 20 * time.Millisecond}}
	got := budget.Allocate(17, ds)
	rev := budget.Allocate(17, []budget.Demand{ds[2], ds[1], ds[0]})
	if got[0] != rev[2] || got[1] != rev[1] || got[2] != rev[0] {
		t.Fatalf("%v gives %v, reversed %v", ds, got, rev)
	}
	for range 3 {
		if again := budget.Allocate(17, ds); !slices.Equal(again, got) {
			t.Fatalf("%v gives %v, then %v", ds, got, again)
		}
	}
}
