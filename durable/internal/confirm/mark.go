package confirm

import (
	"context"
	"time"
)

// Mark is one publish of a batch, awaited as a whole: a key's marker.
// The zero Mark is a publish that needs no answer.
type Mark struct {
	b *Batch
	i int
}

// Mark returns the Mark of publish i of b.
func (b *Batch) Mark(i int) Mark { return Mark{b, i} }

// Wait waits at most timeout for the answer to m, and returns nil if the
// stream stored the message (or had it already), and otherwise the
// stream's refusal or why no answer came (see Batch.Wait): at the latest
// at timeout, at once if the connection closed.
func (m Mark) Wait(timeout time.Duration) error {
	if m.b == nil {
		return nil
	}
	r, err := m.b.Wait(context.Background(), m.i, timeout)
	if err != nil {
		return err
	}
	return r.Err
}
