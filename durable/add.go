package durable

import (
	"context"
	"errors"
	"fmt"

	"github.com/evolvekit/evolve/durable/internal/claim"
	"github.com/evolvekit/evolve/durable/internal/confirm"
	"github.com/evolvekit/evolve/durable/internal/keys"
	"github.com/evolvekit/evolve/durable/internal/traced"
	"github.com/evolvekit/evolve/internal/trace"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Add adds v to the queue under key, and returns once the queue has it:
// it is then in the store, and a chain will take it. A key the queue has
// had within Config.Dedupe of its first add adds nothing, and Add returns
// nil: whether its item waits or was consumed, and across restarts and
// crashes of the queue's processes and servers (see Keys in the package
// doc). It returns an ErrConfig for an empty key, an ErrCodec for a value
// the codec cannot encode, ctx.Err() if ctx ends first, and ErrClosed
// after Close. An item over Config.MaxInline is stored apart first; if
// it cannot be, Add returns why, and adds nothing.
func (q *Queue[T]) Add(ctx context.Context, key string, v T) error {
	m, err := q.message(ctx, key, &v)
	if err != nil {
		return err
	}
	span := q.pub.Start(ctx, m)
	ack, err := q.js.PublishMsg(ctx, m)
	q.settle(m, ack, err)
	if err = keys.Failure(err); err != nil {
		err = q.failed(ctx, err)
	}
	trace.End(span, err)
	return err
}

// Entry is an item to add, with its key.
type Entry[T any] struct {
	Key   string
	Value T
}

// AddMany adds entries as Add does, without waiting for each before
// sending the next: it returns once the queue has them all, or with the
// first error. The entries before it may have been added, and so may
// some after it, or, if the process dies inside AddMany, any: adding
// them all again within Config.Dedupe adds only those the queue does not
// have, after a crash and a restart too, so that no key becomes two
// items (see Keys in the package doc). A confirmation the servers do not
// send within Config.ConnectTimeout is an error.
func (q *Queue[T]) AddMany(ctx context.Context, entries []Entry[T]) error {
	// At most addWindow entries are on their way at once: the server
	// confirms slowly when it syncs every write, and the client queues
	// what it sends in memory.
	b := q.confirms.Batch()
	defer b.Close()
	var spans traced.Spans
	defer spans.Close()
	for i := range entries {
		m, err := q.message(ctx, entries[i].Key, &entries[i].Value)
		if err != nil {
			return err
		}
		spans.Start(ctx, q.pub, m)
		if i >= addWindow {
			if err := q.confirmed(ctx, b, i-addWindow, &spans); err != nil {
				return err
			}
			b.Drop(i - addWindow + 1)
		}
		if _, err := b.Publish(m); err != nil {
			q.settle(m, nil, nil) // not sent
			return q.failed(ctx, err)
		}
	}
	for i := max(len(entries)-addWindow, 0); i < len(entries); i++ {
		if err := q.confirmed(ctx, b, i, &spans); err != nil {
			return err
		}
	}
	return nil
}

// confirmed waits for the servers' answer to publish i of b, a message
// that adds an item, and returns AddMany's error for it: none for a key
// the queue has had, one for no answer (see confirm.Batch.Wait).
func (q *Queue[T]) confirmed(ctx context.Context, b *confirm.Batch, i int, spans *traced.Spans) error {
	r, err := b.Wait(ctx, i, q.cfg.ConnectTimeout)
	if err == nil {
		err = r.Err
	}
	m := b.Msg(i)
	if err == nil {
		q.settle(m, &jetstream.PubAck{Duplicate: r.Duplicate}, nil)
	} else {
		q.settle(m, nil, err)
	}
	if err = keys.Failure(err); err != nil {
		err = q.failed(ctx, err)
	}
	spans.End(m, err)
	return err
}

// addWindow is the most entries AddMany has on their way at once.
const addWindow = 1024

// message returns the message that adds the value v points to under key,
// storing the value apart first if its bytes are more than the message
// may carry (see package claim).
func (q *Queue[T]) message(ctx context.Context, key string, v *T) (*nats.Msg, error) {
	data, err := q.encode(key, v)
	if err != nil || len(data) <= q.inline {
		return q.add(key, data), err
	}
	ref, err := q.claims.Put(ctx, key, data)
	if err != nil {
		return nil, q.failed(ctx, err)
	}
	m := q.add(key, nil)
	m.Header.Set(claim.Header, ref.String())
	return m, nil
}

// settle deletes the object m names, if any, once the servers answered
// its publish with ack or err and certainly did not store it: they
// refused it, or had its key already. An object whose message may have
// been stored stays.
func (q *Queue[T]) settle(m *nats.Msg, ack *jetstream.PubAck, err error) {
	var api *jetstream.APIError
	if m.Header.Get(claim.Header) != "" && (ack != nil && ack.Duplicate || err == nil && ack == nil || errors.As(err, &api)) {
		ctx, cancel := context.WithTimeout(context.Background(), q.cfg.ConnectTimeout)
		defer cancel()
		q.claims.Release(ctx, m.Header.Get(nats.MsgIdHdr), m.Header)
	}
}

// encode checks key and encodes the value v points to.
func (q *Queue[T]) encode(key string, v *T) ([]byte, error) {
	if q.closed.Load() {
		return nil, ErrClosed
	}
	if key == "" {
		return nil, invalid("an item needs a key")
	}
	data, err := q.cfg.Codec.Append(nil, v)
	if err != nil {
		return nil, fmt.Errorf("%w: encoding the item of key %q: %v", ErrCodec, key, err)
	}
	return data, nil
}

// failed turns an error of a publish into the error Add returns.
func (q *Queue[T]) failed(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case q.closed.Load(), errors.Is(err, nats.ErrConnectionClosed):
		return ErrClosed
	}
	return fmt.Errorf("durable: adding to queue %s: %w", q.cfg.Name, err)
}
