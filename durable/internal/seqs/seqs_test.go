package seqs

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRanges checks Of, Minus, Union, Len and String on cases written
// out.
func TestRanges(t *testing.T) {
	assert.Equal(t, Ranges{{1, 3}, {5, 5}, {7, 8}}, Of([]uint64{8, 2, 1, 3, 5, 7, 2}))
	assert.Nil(t, Of(nil))
	for _, c := range []struct {
		r, o, minus, union Ranges
	}{
		{Ranges{{1, 10}}, Ranges{{3, 4}, {8, 12}}, Ranges{{1, 2}, {5, 7}}, Ranges{{1, 12}}},
		{Ranges{{1, 10}}, Ranges{{1, 10}}, Ranges{}, Ranges{{1, 10}}},
		{Ranges{{1, 2}, {6, 9}}, Ranges{{3, 5}}, Ranges{{1, 2}, {6, 9}}, Ranges{{1, 9}}},
		{Ranges{{5, 9}}, Ranges{{1, 2}, {5, 5}, {9, 20}}, Ranges{{6, 8}}, Ranges{{1, 2}, {5, 20}}},
		{Ranges{{1, 1000}, {1006, 2000}}, Ranges{{1, 1005}}, Ranges{{1006, 2000}}, Ranges{{1, 2000}}},
		{Ranges{}, Ranges{{1, 2}}, Ranges{}, Ranges{{1, 2}}},
	} {
		assert.Equal(t, c.minus, c.r.Minus(c.o), "%v minus %v", c.r, c.o)
		assert.Equal(t, c.union, c.r.Union(c.o), "%v union %v", c.r, c.o)
	}
	assert.Equal(t, uint64(7), Ranges{{1, 3}, {10, 13}}.Len())
	assert.Equal(t, "1-3, 5, 7-8", Of([]uint64{1, 2, 3, 5, 7, 8}).String())
	many := Ranges{}
	for i := range uint64(10) {
		many = append(many, Range{10 * i, 10*i + 1})
	}
	assert.Equal(t, "0-1, 10-11, 20-21, 30-31, 40-41, 50-51, 60-61, 70-71, and 2 ranges more", many.String())
}

// TestAddHasAbove adds sequences in a shuffled order and checks the set
// against a plain map: each is in it, no other is, the ranges are sorted,
// apart and merged, they read back as written, and Above drops what is at
// or below a floor.
func TestAddHasAbove(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		var r Ranges
		in := map[uint64]bool{}
		for range rng.IntN(200) {
			seq := 1 + rng.Uint64N(300)
			r, in[seq] = r.Add(seq), true
		}
		for seq := uint64(0); seq <= 301; seq++ {
			if r.Has(seq) != in[seq] {
				t.Fatalf("round %d: Has(%d) = %v; want %v (%v)", round, seq, r.Has(seq), in[seq], r)
			}
		}
		for i := 1; i < len(r); i++ {
			if r[i].First <= r[i-1].Last+1 || r[i].First > r[i].Last {
				t.Fatalf("round %d: ranges %v and %v neither apart nor in order", round, r[i-1], r[i])
			}
		}
		back, err := Ranges(nil).Parse(string(r.AppendText(nil)))
		if err != nil || !slices.Equal(back, r) && len(r) > 0 {
			t.Fatalf("round %d: %v read back as %v, %v", round, r, back, err)
		}
		floor := rng.Uint64N(300)
		r = r.Above(floor)
		for seq := uint64(0); seq <= 301; seq++ {
			if want := in[seq] && seq > floor; r.Has(seq) != want {
				t.Fatalf("round %d: above %d, Has(%d) = %v; want %v", round, floor, seq, r.Has(seq), want)
			}
		}
	}
}

// TestBadRangesAreRefused reads what AppendText never writes.
func TestBadRangesAreRefused(t *testing.T) {
	for _, s := range []string{"x", "0", "5-3", "1-", "-4", "3-x"} {
		if _, err := Ranges(nil).Parse(s); err == nil {
			t.Errorf("%q read without error", s)
		}
	}
	r, err := Ranges{{1, 2}}.Parse("7 4-5 x 9")
	assert.Error(t, err)
	assert.Equal(t, Ranges{{1, 2}, {4, 5}, {7, 7}}, r, "the ranges before the bad one, with those it had")
}
