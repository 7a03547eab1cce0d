package durable

import (
	"errors"
	"fmt"
	"time"

	"github.com/evolvekit/evolve/durable/internal/confirm"
	"github.com/evolvekit/evolve/durable/internal/fairfetch"
	"github.com/evolvekit/evolve/durable/internal/intake"
	"github.com/evolvekit/evolve/durable/internal/keys"
	"github.com/evolvekit/evolve/durable/internal/ledger"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// add returns the message that adds the item of key, encoded as data,
// on the subject of its fair key: the server stores it only if key has
// no marker (see package keys).
func (q *Queue[T]) add(key string, data []byte) *nats.Msg {
	subject := q.items
	if q.cfg.Key != nil {
		subject = fairfetch.Subject(q.items, q.cfg.Key(key))
	}
	if q.retain {
		return &nats.Msg{Subject: subject, Data: data, Header: nats.Header{nats.MsgIdHdr: {key}}}
	}
	return &nats.Msg{Subject: subject, Data: data, Header: keys.Guard(key, keys.Subject(q.keys, key))}
}

// mark sends the marker of each of msgs, whose metadata are mds (nil
// where unknown), and appends to dst the confirmations to come (see
// keys.Mark).
func (q *Queue[T]) mark(dst []confirm.Mark, msgs []jetstream.Msg, mds []*jetstream.MsgMetadata) ([]confirm.Mark, error) {
	if q.retain {
		for range msgs {
			dst = append(dst, confirm.Mark{})
		}
		return dst, nil
	}
	acks, err := keys.Mark(q.confirms, dst, q.keys, q.cfg.Dedupe, time.Now(), msgs, mds)
	if err != nil {
		return nil, q.unmarked(err)
	}
	return acks, nil
}

// sealed waits until the marker of the item h holds is written, and
// reports whether it was: an item is let go of (acknowledged, or sent to
// the dead letters) only once its key's marker stands in its place. One
// whose marker the queue did not take within Config.ConnectTimeout goes
// back to the queue, to be marked again as it is handed out again.
func (q *Queue[T]) sealed(h *ledger.Hold) bool {
	if h.Mark.Wait(q.cfg.ConnectTimeout) == nil {
		return true
	}
	_ = h.Msg.Nak()
	return false
}

// unmarked returns the error of a marker the queue did not take.
func (q *Queue[T]) unmarked(err error) error {
	if errors.Is(err, nats.ErrConnectionClosed) || q.closed.Load() {
		return ErrClosed
	}
	return intake.Unavailable{Err: fmt.Errorf("durable: marking keys handed out by queue %s: %w", q.cfg.Name, err)}
}
