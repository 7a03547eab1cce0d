package crashes

import "github.com/evolvekit/evolve/durable/internal/seqs"

// ackedLine begins a line of the run file that lists sequences
// acknowledged, as seqs.Ranges.AppendText writes them.
const ackedLine = "= "

// appendAcked appends to b a line of the run file that lists r, or
// nothing for none.
func appendAcked(b []byte, r seqs.Ranges) []byte {
	if len(r) == 0 {
		return b
	}
	return append(r.AppendText(append(b, ackedLine...)), '\n')
}
