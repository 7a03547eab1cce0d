// Package keys keeps a queue's dedupe window through restarts of its
// servers, with a marker for each key the queue has handed out.
//
// JetStream keeps the keys (message IDs) it has seen within a stream's
// window in memory, and rebuilds them as it opens the stream from the
// messages still in it: an item acknowledged before a restart is gone,
// and so is its key. So the queue writes a marker for each item it hands
// out, before it lets go of it (acknowledged or dead): a message of its
// own stream, on a subject of the key's own ([Subject]), whose TTL
// ([TTL]) ends with the key's window; and an item is published with
// headers ([Guard]) that make the server store it only if its key has no
// marker, refusing it otherwise ([Refused]). Until an item is handed out,
// the item itself keeps its key in the window; from before it goes, its
// marker does: a crash at any moment leaves one or the other.
package keys

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"time"

	"github.com/evolvekit/evolve/durable/internal/confirm"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Subject returns the subject of the marker of key, under prefix (the
// queue's, ending with a dot): the first 128 bits of the key's SHA-256,
// in hex, so that any key makes one token.
func Subject(prefix, key string) string {
	sum := sha256.Sum256([]byte(key))
	return prefix + hex.EncodeToString(sum[:16])
}

// Guard returns the headers of the item of key, whose marker's subject is
// marker: the key is the message's ID, which keeps it in the stream's
// window while the item is in the stream, and the server stores the item
// only if no message is on marker.
func Guard(key, marker string) nats.Header {
	return nats.Header{
		nats.MsgIdHdr:                           {key},
		jetstream.ExpectedLastSubjSeqHeader:     {"0"},
		jetstream.ExpectedLastSubjSeqSubjHeader: {marker},
	}
}

// The JetStream errors of a message refused because the last message on
// its marker's subject is not the one expected: the key has a marker, or,
// in a cluster, one is on its way.
const (
	errCodeWrongLastSeq      = 10071
	errCodeWrongLastSeqConst = 10164
)

// Refused reports whether err is the servers' refusal of an item whose
// key has a marker: the queue has had the item within its window.
func Refused(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && (api.ErrorCode == errCodeWrongLastSeq || api.ErrorCode == errCodeWrongLastSeqConst)
}

// Failure returns err, the error of an add, or nil for one the servers
// refused for its key's marker (see Refused): it added nothing, and
// failed nothing.
func Failure(err error) error {
	if Refused(err) {
		return nil
	}
	return err
}

// TTL returns the headers of a marker that lives for left, and false if
// left is not positive: JetStream counts TTLs in whole seconds, so left
// is rounded up.
func TTL(left time.Duration) (nats.Header, bool) {
	if left <= 0 {
		return nil, false
	}
	secs := int64((left + time.Second - 1) / time.Second)
	return nats.Header{jetstream.MsgTTLHeader: {strconv.FormatInt(secs, 10) + "s"}}, true
}

// Mark publishes with p, in one batch, the marker of each of msgs, whose
// metadata are mds (nil where unknown), under prefix, at instant now, and
// appends to dst the confirmations to come, one for each (the zero Mark
// where no marker is needed): a marker lives until the end of its key's
// window, counted from when the item was added, by the time the server
// stamped on it. An error is the first publish that failed.
func Mark(p *confirm.Publisher, dst []confirm.Mark, prefix string, window time.Duration, now time.Time, msgs []jetstream.Msg, mds []*jetstream.MsgMetadata) ([]confirm.Mark, error) {
	var b *confirm.Batch
	for i, msg := range msgs {
		key := msg.Headers().Get(nats.MsgIdHdr)
		left := window
		if mds[i] != nil {
			left -= now.Sub(mds[i].Timestamp)
		}
		h, ok := TTL(left)
		if key == "" || !ok {
			dst = append(dst, confirm.Mark{})
			continue
		}
		if b == nil {
			b = p.Batch()
		}
		j, err := b.Publish(&nats.Msg{Subject: Subject(prefix, key), Header: h})
		if err != nil {
			return dst, err
		}
		dst = append(dst, b.Mark(j))
	}
	return dst, nil
}
