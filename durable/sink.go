package durable

import (
	"context"
	"fmt"

	"github.com/evolvekit/evolve/durable/internal/claim"
	"github.com/evolvekit/evolve/durable/internal/intake"
	"github.com/evolvekit/evolve/durable/internal/ledger"
	"github.com/evolvekit/evolve/internal/safe"
	"github.com/nats-io/nats.go/jetstream"
)

// Sink returns a chain's sink for items: it calls f with each item that
// reaches it and acknowledges the item once f returns nil, waiting until
// the queue has the acknowledgement (a round trip an item: a buffer stage
// and [Batches] cost one a batch). An item f fails goes back to the
// queue, to be taken again after a backoff (an attempt spent); on its
// last attempt it goes to the dead letters, with f's error. A panic in f
// is such an error: an *agent.PanicError, whose stack the dead letter
// keeps (see the package doc). f runs in the chain's last stage, one
// item at a time.
func Sink[T, U any](q *Queue[T], f func(Item[U]) error) func(Item[U]) {
	return func(it Item[U]) {
		if err := guard(func() error { return f(it) }); err != nil {
			q.retry(it.Ticket, err)
			return
		}
		q.ackConfirmed(it.Ticket)
	}
}

// Batches returns a chain's sink for batches of items, as a buffer stage
// emits them: it calls f with each batch and acknowledges every item of
// it once f returns nil. A batch f fails, or panics on, goes back to the
// queue item by item, as [Sink] hands back an item. f should write a
// batch all or nothing, so that a crash while it runs leaves no half
// batch: the items of a batch not acknowledged come back.
func Batches[T, U any](q *Queue[T], f func([]Item[U]) error) func([]Item[U]) {
	return func(batch []Item[U]) {
		if err := guard(func() error { return f(batch) }); err != nil {
			for _, it := range batch {
				q.retry(it.Ticket, err)
			}
			return
		}
		var acked []*ledger.Hold
		for i, it := range batch {
			if i == len(batch)-1 {
				q.ackConfirmed(it.Ticket, acked...)
			} else if h := q.ack(it.Ticket); h != nil && (q.retain && q.crash != nil || h.Msg.Headers().Get(claim.Header) != "" || h.State != nil) {
				acked = append(acked, h)
			}
		}
	}
}

// guard calls f, and returns its error, or the *agent.PanicError, stack
// and all, that its panic became.
func guard(f func() error) (err error) {
	defer safe.Recover(&err)
	return f()
}

// ack acknowledges the item of ticket t, if this process holds it, and
// returns what it held, or nil.
func (q *Queue[T]) ack(t uint64) *ledger.Hold {
	if h, ok := q.ledger.Take(ledger.Ticket(t)); ok && q.sealed(h) {
		q.spared.Forget(h.Seq)
		_ = h.Msg.Ack()
		return h
	}
	return nil
}

// ackConfirmed acknowledges the item of ticket t, if this process holds
// it, and waits until the queue has taken the acknowledgement, and with it
// every one this process sent before: the server takes a consumer's
// acknowledgements in order. So once a sink has returned, the queue no
// longer holds what it acknowledged. Then it deletes the objects of the
// items stored apart among them and the acknowledged before (see package
// claim): no message names them any more.
func (q *Queue[T]) ackConfirmed(t uint64, before ...*ledger.Hold) {
	h, ok := q.ledger.Take(ledger.Ticket(t))
	if !ok || !q.sealed(h) {
		return
	}
	q.spared.Forget(h.Seq)
	ctx, cancel := context.WithTimeout(context.Background(), q.cfg.ConnectTimeout)
	defer cancel()
	if err := h.Msg.DoubleAck(ctx); err != nil {
		_ = h.Msg.Ack()
		return
	}
	q.acked(append(before, h))
	for _, a := range append(before, h) {
		q.claims.Release(ctx, a.Key, a.Msg.Headers())
		q.unmove(ctx, a)
	}
}

// acked records that the queue has the acknowledgements of the items
// held by hs, in an embedded queue's record of its runs (see package
// crashes); one that cannot be written only costs the work done again
// after a crash.
func (q *Queue[T]) acked(hs []*ledger.Hold) {
	if q.crash == nil || !q.retain {
		return
	}
	seqs := make([]uint64, len(hs))
	for i, h := range hs {
		seqs[i] = h.Seq
	}
	_ = q.crash.Acked(seqs...)
}

// retry hands the item of ticket t, which the sink failed with err, back
// to the queue, to be taken again after a backoff that grows with its
// attempts; if it has none left, it goes to the dead letters instead.
func (q *Queue[T]) retry(t uint64, err error) {
	h, ok := q.ledger.Take(ledger.Ticket(t))
	if !ok {
		return
	}
	delivered, n := uint64(1), 1
	if md, err := h.Msg.Metadata(); err == nil {
		delivered, n = md.NumDelivered, q.attempts(md)
	}
	if n >= q.cfg.MaxAttempts {
		q.bury(h, fmt.Errorf("sink, attempt %d of %d: %w", n, q.cfg.MaxAttempts, err), n)
		return
	}
	_ = h.Msg.NakWithDelay(intake.Backoff(delivered))
}

// attempts returns the attempts an item of metadata md has spent: the
// times the queue handed it out, and the processes it killed (see package
// crashes), less the deliveries this process spared.
func (q *Queue[T]) attempts(md *jetstream.MsgMetadata) int {
	seq := md.Sequence.Stream
	return int(md.NumDelivered) + q.crash.Killed(seq) - q.spared.Of(seq)
}

// handBack hands the item h holds back to the queue, for want of anything
// to work on it, to be handed out again after a backoff, sparing the
// attempt.
func (q *Queue[T]) handBack(h *ledger.Hold) {
	delivered := uint64(1)
	if md, err := h.Msg.Metadata(); err == nil {
		delivered = md.NumDelivered
		q.spared.Add(md.Sequence.Stream)
	}
	_ = h.Msg.NakWithDelay(intake.Backoff(delivered))
}
