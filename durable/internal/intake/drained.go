package intake

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go/jetstream"
)

// Held is what a process holds of a queue (a ledger): the messages of the
// queue it holds, each counted once however many times it is held, and
// their stream sequences, with how many held have none.
type Held interface {
	Messages() int
	Sequences() ([]uint64, int)
}

// Drained reports whether a queue of length n, whose stream is s, holds
// nothing but what held holds: every message in the queue is one held.
// Counting is not enough: a message handed out again while the process
// held it (its lease ran out as a cluster elected a leader) is held
// twice, once it may be gone from the queue (acknowledged under its first
// delivery), and either would hide a message that waits to come back (one
// whose acknowledgement the election lost): the run would end with it in
// the queue. So when the count says drained, the messages held are looked
// up, one request each, and those gone from the queue do not count.
func Drained(ctx context.Context, s jetstream.Stream, n int, held Held) (bool, error) {
	if n > held.Messages() {
		return false, nil
	}
	kept, err := StillQueued(ctx, s, held)
	return err == nil && n <= kept, err
}

// StillQueued counts the messages held that stream s still holds.
func StillQueued(ctx context.Context, s jetstream.Stream, held Held) (int, error) {
	seqs, unknown := held.Sequences()
	kept := unknown
	for _, seq := range seqs {
		_, err := s.GetMsg(ctx, seq)
		switch {
		case err == nil:
			kept++
		case !errors.Is(err, jetstream.ErrMsgNotFound):
			return 0, err
		}
	}
	return kept, nil
}
