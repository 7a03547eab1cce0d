package parallel

import "github.com/evolvekit/evolve/internal/fifo"

// held is the results finished and not yet emitted, kept in runs: each run
// holds the results for consecutive places (input positions in input
// order, else places in the output), under the place of its first. A batch
// whose results come out of turn is held as one run, not one entry per
// result, so holding it and emitting it cost an entry or two whatever its
// size. A run is never written once held: taking part of one holds the
// rest as a view of it. The zero held is empty; it is a value, as Slots is.
type held[Out any] struct {
	runs fifo.Slots[run[Out]]
	n    int // results held, over all runs
}

// run is the results for consecutive places: the first, and those after
// it, if any, in a slice of their own (a lone result needs none).
type run[Out any] struct {
	first Result[Out]
	rest  []Result[Out]
}

// Len returns how many results are held.
func (h held[Out]) Len() int { return h.n }

// withResults returns held with rs added: by Seq when ordered, else at
// the places in the output that follow the ones held, the first of which
// is the emitted-th. rs are copied: the caller may reuse them.
func withResults[Out any](h held[Out], rs []Result[Out], ordered bool, emitted uint64) held[Out] {
	if len(rs) == 0 {
		return h
	}
	if !ordered {
		h.runs = h.runs.Put(emitted+uint64(h.n), newRun(rs))
		h.n += len(rs)
		return h
	}
	// In input order, a run holds results of consecutive Seqs: the items
	// of the batch that wait for a retry leave gaps that split it.
	start := 0
	for i := 1; i <= len(rs); i++ {
		if i == len(rs) || rs[i].Seq != rs[i-1].Seq+1 {
			h.runs = h.runs.Put(rs[start].Seq, newRun(rs[start:i]))
			start = i
		}
	}
	h.n += len(rs)
	return h
}

// newRun returns a run of copies of rs, which are not empty.
func newRun[Out any](rs []Result[Out]) run[Out] {
	r := run[Out]{first: rs[0]}
	if len(rs) > 1 {
		r.rest = append([]Result[Out](nil), rs[1:]...)
	}
	return r
}

// ready counts the held results from place from on that follow one
// another without a gap.
func (h held[Out]) ready(from uint64) int {
	n := 0
	for n < h.n {
		r, ok := h.runs.Get(from + uint64(n))
		if !ok {
			break
		}
		n += 1 + len(r.rest)
	}
	return n
}

// takeHeld appends to out the n held results from place from on, which
// are all there, and returns it with held without them.
func takeHeld[Out any](h held[Out], from uint64, n int, out []Result[Out]) ([]Result[Out], held[Out]) {
	for n > 0 {
		r, _, runs := h.runs.Take(from)
		h.runs = runs
		k := min(n, 1+len(r.rest))
		out = append(out, r.first)
		out = append(out, r.rest[:k-1]...)
		if k <= len(r.rest) {
			h.runs = h.runs.Put(from+uint64(k), run[Out]{first: r.rest[k-1], rest: r.rest[k:]})
		}
		h.n -= k
		n -= k
		from += uint64(k)
	}
	return out, h
}
