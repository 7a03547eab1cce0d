package durable

import (
	"context"
	"fmt"
	"reflect"
	"strconv"

	"github.com/evolvekit/evolve/agent"
	"github.com/nats-io/nats.go"
)

// DeadLetters sends what failed for good in a chain to the queue's dead
// letters and acknowledges it: give it to the chain as
// compose.WithDeadLetters(q.DeadLetters). It finds the item in d.Item,
// an Item of any type or a slice of them; a dead letter with no ticket of
// this process is ignored. Without it, an item a chain failed goes back
// to the queue once the chain ends, and is tried again until
// Config.MaxAttempts.
func (q *Queue[T]) DeadLetters(d agent.DeadLetter) {
	for _, t := range tickets(d.Item) {
		h, ok := q.ledger.take(t)
		if !ok {
			continue
		}
		reason := "failed"
		if d.Err != nil {
			reason = d.Err.Error()
		}
		q.bury(h, fmt.Sprintf("%s: %s", d.Agent, reason), d.Attempts)
	}
}

// tickets returns the tickets of an Item of any type, or of a slice of
// them.
func tickets(v any) []Ticket {
	if it, ok := v.(ticketed); ok {
		return []Ticket{it.ticket()}
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		return nil
	}
	var out []Ticket
	for i := range rv.Len() {
		if it, ok := rv.Index(i).Interface().(ticketed); ok {
			out = append(out, it.ticket())
		}
	}
	return out
}

// The headers of a dead letter.
const (
	headerError    = "Evolve-Error"
	headerAttempts = "Evolve-Attempts"
	headerKey      = "Evolve-Key"
)

// bury puts the item h holds in the dead letters, with why it failed,
// and acknowledges it once they have it. If they cannot take it, the
// item goes back to the queue.
func (q *Queue[T]) bury(h *hold, why string, attempts int) {
	ctx, cancel := context.WithTimeout(context.Background(), q.cfg.ConnectTimeout)
	defer cancel()
	m := nats.NewMsg(q.dead)
	m.Data = h.msg.Data()
	m.Header.Set(headerError, why)
	m.Header.Set(headerAttempts, strconv.Itoa(attempts))
	m.Header.Set(headerKey, h.key)
	m.Header.Set(nats.MsgIdHdr, h.key)
	if _, err := q.js.PublishMsg(ctx, m); err != nil {
		_ = h.msg.Nak()
		return
	}
	if err := h.msg.DoubleAck(ctx); err != nil {
		_ = h.msg.Ack()
	}
}

// DeadLetterSink returns a chain's dead-letter sink of the user's own: f
// takes each dead letter (its Item is an Item, or a slice of them), and
// once f returns nil the items are acknowledged; if f fails, they go to
// the queue's dead letters instead. Give it to the chain as
// compose.WithDeadLetters(durable.DeadLetterSink(q, f)). A chain without a
// dead-letter sink that acknowledges (this one, or [Queue.DeadLetters])
// hands back what it fails only when [Consume] ends.
func DeadLetterSink[T any](q *Queue[T], f func(agent.DeadLetter) error) func(agent.DeadLetter) {
	return func(d agent.DeadLetter) {
		if err := call(func() error { return f(d) }); err != nil {
			d.Err = fmt.Errorf("%v (and the dead-letter sink failed: %v)", d.Err, err)
			q.DeadLetters(d)
			return
		}
		for _, t := range tickets(d.Item) {
			q.ackConfirmed(t)
		}
	}
}

// DeadLen returns the number of items in the queue's dead letters.
func (q *Queue[T]) DeadLen(ctx context.Context) (int, error) { return count(ctx, q.deadStream) }
