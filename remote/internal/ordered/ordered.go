// Package ordered is a deque of item Seqs kept in increasing order: a
// line of a remote stage's book, from which dispatch hands out the oldest
// item first, and into which an item taken back goes in its place.
package ordered

import "github.com/evolvekit/evolve/internal/fifo"

// Seqs is a deque of item Seqs kept in increasing order by Add. The zero
// Seqs is empty.
type Seqs struct{ fifo.Deque[uint64] }

// search returns the index of the first Seq at least seq.
func (q *Seqs) search(seq uint64) int {
	lo, hi := 0, q.Len()
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if *q.At(mid) < seq {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// Add puts seq in its place.
func (q *Seqs) Add(seq uint64) {
	if n := q.Len(); n == 0 || *q.At(n - 1) < seq {
		q.PushBack(seq)
		return
	}
	q.Insert(q.search(seq), seq)
}

// Drop takes seq out, if it is there.
func (q *Seqs) Drop(seq uint64) {
	if i := q.search(seq); i < q.Len() && *q.At(i) == seq {
		q.Remove(i)
	}
}

// Clone returns a copy of q that shares nothing with it.
func (q *Seqs) Clone() Seqs { return Seqs{q.Deque.Clone()} }
