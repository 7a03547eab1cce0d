package durable

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A queue's dedupe window outlives a restart of its servers. JetStream
// keeps the keys it has seen within a stream's window in memory, and
// rebuilds them as it opens the stream from the messages still in it: an
// item acknowledged before a restart is gone, and so is its key. So the
// queue keeps a marker for each key it hands out, in its own stream, on a
// subject of the key's own (see marker), with a TTL that ends with the
// key's window; and an item is added only if its key has no marker, a
// check the server makes as it stores the item (the headers of add).
// Until the queue hands an item out, the item itself keeps its key in the
// window; from before the queue lets go of it (acknowledged or dead), its
// marker does. A crash at any moment leaves one or the other.

// markerTTL bounds how far a marker's TTL is rounded up: JetStream counts
// TTLs in whole seconds.
const markerTTL = time.Second

// The JetStream errors of an item refused because the last message on
// its marker's subject is not the one expected: the key has a marker, or
// in a cluster one is on its way.
const (
	errCodeWrongLastSeq      = 10071
	errCodeWrongLastSeqConst = 10164
)

// marker returns the subject of the marker of key: the queue's keys
// subject and the first 128 bits of the key's SHA-256, in hex, so that any
// key makes one token.
func (q *Queue[T]) marker(key string) string {
	sum := sha256.Sum256([]byte(key))
	return q.keys + hex.EncodeToString(sum[:16])
}

// add returns the message that adds the item of key, encoded as data:
// the server stores it only if key has no marker, and keeps key in the
// stream's dedupe window.
func (q *Queue[T]) add(key string, data []byte) *nats.Msg {
	return &nats.Msg{Subject: q.items, Data: data, Header: nats.Header{
		nats.MsgIdHdr:                           {key},
		jetstream.ExpectedLastSubjSeqHeader:     {"0"},
		jetstream.ExpectedLastSubjSeqSubjHeader: {q.marker(key)},
	}}
}

// marked reports whether err is the servers' refusal of an item whose key
// has a marker: the queue has had the item within its window.
func marked(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && (api.ErrorCode == errCodeWrongLastSeq || api.ErrorCode == errCodeWrongLastSeqConst)
}

// mark sends the marker of each of msgs, whose metadata are mds (nil
// where unknown), and returns the confirmations to come, one for each
// (nil where no marker is needed). A marker lives until the end of its
// key's window, counted from when the item was added, by the time the
// server stamped on it.
func (q *Queue[T]) mark(msgs []jetstream.Msg, mds []*jetstream.MsgMetadata) ([]jetstream.PubAckFuture, error) {
	now := time.Now()
	acks := make([]jetstream.PubAckFuture, len(msgs))
	for i, msg := range msgs {
		key := msg.Headers().Get(nats.MsgIdHdr)
		left := q.cfg.Dedupe
		if mds[i] != nil {
			left -= now.Sub(mds[i].Timestamp)
		}
		if key == "" || left <= 0 {
			continue
		}
		secs := (left + markerTTL - 1) / markerTTL
		m := &nats.Msg{Subject: q.marker(key), Header: nats.Header{jetstream.MsgTTLHeader: {strconv.FormatInt(int64(secs), 10) + "s"}}}
		a, err := q.marks.PublishMsgAsync(m)
		if err != nil {
			return nil, q.unmarked(err)
		}
		acks[i] = a
	}
	return acks, nil
}

// sealed waits until the marker of the item h holds is written, and
// reports whether it was: an item is let go of (acknowledged, or sent to
// the dead letters) only once its key's marker stands in its place. One
// whose marker the queue did not take within Config.ConnectTimeout goes
// back to the queue, to be marked again as it is handed out again.
func (q *Queue[T]) sealed(h *hold) bool {
	if h.mark == nil {
		return true
	}
	select {
	case <-h.mark.Ok():
		return true
	default:
	}
	t := time.NewTimer(q.cfg.ConnectTimeout)
	defer t.Stop()
	select {
	case <-h.mark.Ok():
		return true
	case <-h.mark.Err():
	case <-t.C:
	}
	_ = h.msg.Nak()
	return false
}

// unmarked returns the error of a marker the queue did not take.
func (q *Queue[T]) unmarked(err error) error {
	if errors.Is(err, nats.ErrConnectionClosed) || q.closed.Load() {
		return ErrClosed
	}
	return unavailable{fmt.Errorf("durable: marking keys handed out by queue %s: %w", q.cfg.Name, err)}
}
