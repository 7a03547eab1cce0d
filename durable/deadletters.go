package durable

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/durable/internal/claim"
	"github.com/evolvekit/evolve/durable/internal/ledger"
	"github.com/evolvekit/evolve/durable/internal/letter"
)

// DeadLetters sends what failed for good in a chain to the queue's dead
// letters and acknowledges it: give it to the chain as
// compose.WithDeadLetters(q.DeadLetters). It finds the item in d.Item,
// an Item of any type or a slice of them; a dead letter with no ticket of
// this process is ignored. For a chain without it, see Drops in the
// package doc.
//
// A dead letter whose error matches agent.ErrUnavailable (a remote stage
// had no worker that could take the item, say) is not the item's fault:
// the item goes back to the queue instead, to be handed out again after a
// backoff, and that delivery spends none of its attempts.
func (q *Queue[T]) DeadLetters(d agent.DeadLetter) {
	err := cmp.Or(d.Err, errFailed)
	spare := errors.Is(err, agent.ErrUnavailable)
	for _, t := range tickets(d.Item) {
		h, ok := q.ledger.Take(ledger.Ticket(t))
		switch {
		case !ok:
		case spare:
			q.handBack(h)
		default:
			q.bury(h, fmt.Errorf("%s: %w", d.Agent, err), d.Attempts)
		}
	}
}

// DeadLetterSink returns a chain's dead-letter sink of the user's own: f
// takes each dead letter (its Item is an Item, or a slice of them), and
// once f returns nil the items are acknowledged; if f fails or panics,
// they go to the queue's dead letters instead. Give it to the chain as
// compose.WithDeadLetters(durable.DeadLetterSink(q, f)).
func DeadLetterSink[T any](q *Queue[T], f func(agent.DeadLetter) error) func(agent.DeadLetter) {
	return func(d agent.DeadLetter) {
		if errors.Is(d.Err, agent.ErrUnavailable) {
			q.DeadLetters(d) // handed back, not the item's fault: see Queue.DeadLetters
			return
		}
		if err := guard(func() error { return f(d) }); err != nil {
			d.Err = fmt.Errorf("%w (and the dead-letter sink failed: %w)", cmp.Or(d.Err, errFailed), err)
			q.DeadLetters(d)
			return
		}
		for _, t := range tickets(d.Item) {
			q.ackConfirmed(t)
		}
	}
}

// DeadLen returns the number of items in the queue's dead letters.
func (q *Queue[T]) DeadLen(ctx context.Context) (int, error) {
	info, err := q.deadStream.Info(ctx)
	if err != nil {
		return 0, err
	}
	return int(info.State.Msgs), nil
}

// tickets returns the tickets of an Item of any type, or of a slice of
// them.
func tickets(v any) []uint64 {
	if it, ok := v.(ticketed); ok {
		return []uint64{it.ticket()}
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		return nil
	}
	var out []uint64
	for i := range rv.Len() {
		if it, ok := rv.Index(i).Interface().(ticketed); ok {
			out = append(out, it.ticket())
		}
	}
	return out
}

// errFailed is the reason of a dead letter that gives none.
var errFailed = errors.New("failed")

// bury puts the item h holds in the dead letters, with err, why it
// failed, and the stack of the panic err holds, if any; and acknowledges
// the item once they have it. If they cannot take it, the item goes back
// to the queue.
func (q *Queue[T]) bury(h *ledger.Hold, err error, attempts int) {
	if !q.sealed(h) {
		return
	}
	q.spared.Forget(h.Seq)
	ctx, cancel := context.WithTimeout(context.Background(), q.cfg.ConnectTimeout)
	defer cancel()
	// An object stored apart stays (see Large items in the package doc).
	m := letter.New(q.dead, h.Msg.Data(), h.Msg.Headers(), claim.Header, h.Key, err, attempts)
	if _, err := q.js.PublishMsg(ctx, m); err != nil {
		_ = h.Msg.Nak()
		return
	}
	if err := h.Msg.DoubleAck(ctx); err != nil {
		_ = h.Msg.Ack()
	} else {
		q.acked([]*ledger.Hold{h})
	}
	q.unmove(ctx, h)
}
