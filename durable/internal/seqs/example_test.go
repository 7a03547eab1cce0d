package seqs_test

import (
	"fmt"

	"github.com/evolvekit/evolve/durable/internal/seqs"
)

func ExampleRanges_Add() {
	var r seqs.Ranges
	for _, seq := range []uint64{1, 2, 3, 7, 5, 6, 9} {
		r = r.Add(seq)
	}
	fmt.Println(string(r.AppendText(nil)), r.Has(4), r.Has(6), r.Above(6))
	// Output: 1-3 5-7 9 false true 7, 9
}
