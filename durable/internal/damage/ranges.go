package damage

import "github.com/evolvekit/evolve/durable/internal/seqs"

// Ranges and Range are sets of stream sequences (see package seqs).
type (
	Ranges = seqs.Ranges
	Range  = seqs.Range
)

// Of returns the sequences of s, in any order, as ranges.
func Of(s []uint64) Ranges { return seqs.Of(s) }

// Held returns the sequences from first to last but those deleted: what
// a stream whose state says so holds. It is empty if last < first.
func Held(first, last uint64, deleted []uint64) Ranges {
	if last < first || first == 0 {
		return Ranges{}
	}
	return Ranges{{First: first, Last: last}}.Minus(Of(deleted))
}
