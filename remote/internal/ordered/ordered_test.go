package ordered_test

import (
	"slices"
	"testing"

	"github.com/evolvekit/evolve/remote/internal/ordered"
)

// items returns the Seqs of q, front first.
func items(q *ordered.Seqs) []uint64 {
	out := make([]uint64, q.Len())
	for i := range out {
		out[i] = *q.At(i)
	}
	return out
}

// TestSeqsStayInOrder adds Seqs out of order and drops some, there or
// not: the deque stays in increasing order, and a clone is apart.
func TestSeqsStayInOrder(t *testing.T) {
	var q ordered.Seqs
	for _, s := range []uint64{5, 9, 1, 7, 3} {
		q.Add(s)
	}
	c := q.Clone()
	q.Drop(7)
	q.Drop(4) // not there
	if got, want := items(&q), []uint64{1, 3, 5, 9}; !slices.Equal(got, want) {
		t.Errorf("Seqs = %v, want %v", got, want)
	}
	if got, want := items(&c), []uint64{1, 3, 5, 7, 9}; !slices.Equal(got, want) {
		t.Errorf("the clone = %v, want %v", got, want)
	}
}
