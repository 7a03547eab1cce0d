package fifo_test

import (
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/evolvekit/evolve/internal/fifo"
)

// TestNumberedIsAMap runs random puts, deletes and clears, of places close
// together and far apart, on a Numbered and a Go map side by side.
func TestNumberedIsAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var n fifo.Numbered[int]
	m := map[uint64]int{}
	next := uint64(0)
	for step := range 20_000 {
		var k uint64
		switch r.IntN(10) {
		case 0:
			k = r.Uint64() // far from the rest
		default:
			k = next - uint64(r.IntN(300))
		}
		switch op := r.IntN(100); {
		case op < 55:
			n.Put(k, step)
			m[k] = step
			next++
		case op < 99:
			got, ok := n.Delete(k)
			want, had := m[k]
			if ok != had || got != want {
				t.Fatalf("step %d: Delete(%d) = %d, %v; want %d, %v", step, k, got, ok, want, had)
			}
			delete(m, k)
		default:
			n.Clear()
			clear(m)
		}
		if n.Len() != len(m) {
			t.Fatalf("step %d: Len = %d; want %d", step, n.Len(), len(m))
		}
		if got, ok := n.Get(k); ok != (func() bool { _, h := m[k]; return h })() || ok && got != m[k] {
			t.Fatalf("step %d: Get(%d) = %d, %v; want %d", step, k, got, ok, m[k])
		}
	}
	got := maps.Collect(n.All())
	if !maps.Equal(got, m) {
		t.Fatalf("All yields %d values, unlike the map's %d", len(got), len(m))
	}
}

// TestNumberedZero uses a zero Numbered without a Put.
func TestNumberedZero(t *testing.T) {
	var n fifo.Numbered[string]
	if _, ok := n.Get(3); ok {
		t.Error("the zero Numbered holds place 3")
	}
	if _, ok := n.Delete(3); ok {
		t.Error("the zero Numbered deleted place 3")
	}
	n.Clear()
	for k := range n.All() {
		t.Errorf("the zero Numbered yields %d", k)
	}
}
