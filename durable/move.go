package durable

import (
	"context"
	"time"

	"github.com/evolvekit/evolve/durable/internal/claim"
	"github.com/evolvekit/evolve/durable/internal/ledger"
	"github.com/evolvekit/evolve/durable/internal/moved"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Moved records next, the state an item reached as a remote master took
// its move to tag, hops moves into this run, as the item's state in the
// queue, and returns once the queue has it (a round trip): an item a
// crash lets go of comes back with it (see Moves in the package doc). It
// fits remote.Config.OnMove. An item not held records nothing.
func (q *Queue[T]) Moved(next Item[T], tag string, hops int) error {
	seq, ok := q.ledger.Seq(ledger.Ticket(next.Ticket))
	if !ok || seq == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), q.cfg.ConnectTimeout)
	defer cancel()
	data, err := q.encode(next.Key, &next.Value)
	if err != nil {
		return err
	}
	m := &nats.Msg{Subject: moved.Subject(q.moved, seq), Data: data, Header: moved.Header(tag, next.Moves+hops)}
	if len(data) > q.inline {
		ref, err := q.claims.Put(ctx, next.Key, data)
		if err != nil {
			return q.failed(ctx, err)
		}
		m.Data = nil
		m.Header.Set(claim.Header, ref.String())
	}
	if _, err := q.js.PublishMsg(ctx, m); err != nil {
		return q.failed(ctx, err)
	}
	q.gate.Saw()
	if prev, _ := q.ledger.Moved(ledger.Ticket(next.Ticket), m.Header); prev != nil {
		q.claims.Release(ctx, next.Key, prev)
	}
	return nil
}

// resume returns the headers and bytes of msg's item it (ticket t): the
// state a move recorded, looked up if it may have one, or msg's own.
func (q *Queue[T]) resume(ctx context.Context, t ledger.Ticket, it *Item[T], msg jetstream.Msg, md *jetstream.MsgMetadata) (nats.Header, []byte, error) {
	if md == nil || md.NumDelivered < 2 && !q.resumes || !q.gate.May(ctx, q.stream, q.moved, time.Now()) {
		return msg.Headers(), msg.Data(), nil
	}
	s, ok, err := moved.Find(ctx, q.stream, moved.Subject(q.moved, md.Sequence.Stream))
	if !ok {
		return msg.Headers(), msg.Data(), err
	}
	q.gate.Saw()
	q.ledger.Moved(t, s.Header)
	it.Tag, it.Moves = s.Tag, s.Moves
	return s.Header, s.Data, nil
}

// unmove purges the state recorded for the item h held, object and all.
func (q *Queue[T]) unmove(ctx context.Context, h *ledger.Hold) {
	if h.State != nil && moved.Drop(ctx, q.stream, moved.Subject(q.moved, h.Seq)) == nil {
		q.claims.Release(ctx, h.Key, h.State)
	}
}
