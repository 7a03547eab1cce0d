package book

import "github.com/evolvekit/evolve/internal/fifo"

// seqs is a deque of item Seqs kept in increasing order.
type seqs struct{ fifo.Deque[uint64] }

// search returns the index of the first Seq at least seq.
func (q *seqs) search(seq uint64) int {
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

// add puts seq in its place.
func (q *seqs) add(seq uint64) {
	if n := q.Len(); n == 0 || *q.At(n - 1) < seq {
		q.PushBack(seq)
		return
	}
	q.Insert(q.search(seq), seq)
}

// drop takes seq out, if it is there.
func (q *seqs) drop(seq uint64) {
	if i := q.search(seq); i < q.Len() && *q.At(i) == seq {
		q.Remove(i)
	}
}
