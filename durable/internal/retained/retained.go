// Package retained answers, for a durable queue that keeps each item in
// its stream, acknowledged, until its key's dedupe window ends, what a
// work queue's stream answers by itself: whether an item is acknowledged,
// how many wait, from where a message may still be in use. Such a queue
// needs no marker of a key: the servers rebuild their dedupe from the
// messages a stream holds as they restart, so the item is its own marker
// (package sweep lets it go once its window is over).
package retained

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/evolvekit/evolve/durable/internal/layout"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Retains reports whether a queue keeps its items: one without fair keys
// (keyed false), unless its stream, made (nil for none yet), was made as
// a work queue, which the servers cannot change. It reports refused for a
// queue with fair keys whose stream keeps its items, which cannot gain
// them: fair keys take a consumer of each key's, made again once idle,
// which would hand out again what a consumer before it acknowledged.
func Retains(made *jetstream.StreamInfo, keyed bool) (retains, refused bool) {
	work := made != nil && made.Config.Retention == jetstream.WorkQueuePolicy
	return !keyed && !work, keyed && made != nil && !work
}

// Retention returns the retention policy of a queue's stream that
// retains its items, or not.
func Retention(retains bool) jetstream.RetentionPolicy {
	if retains {
		return jetstream.LimitsPolicy
	}
	return jetstream.WorkQueuePolicy
}

// From returns the first sequence of a stream whose consumer (the queue's,
// layout.ConsumerName) may not have acknowledged it: for a queue that
// retains its items, the one after its acknowledgement floor; 0 for all
// for one that does not, or has no consumer.
func From(ctx context.Context, s jetstream.Stream, retains bool) uint64 {
	if !retains {
		return 0
	}
	c, err := s.Consumer(ctx, layout.ConsumerName)
	if err != nil {
		return 0
	}
	return c.CachedInfo().AckFloor.Stream + 1
}

// Acked reports whether consumer c certainly acknowledged the item of
// sequence seq: it is at or below c's acknowledgement floor. (One above
// it may be acknowledged too: the consumer does not say.)
func Acked(ctx context.Context, c jetstream.Consumer, seq uint64) bool {
	info, err := c.Info(ctx)
	return err == nil && info.AckFloor.Stream >= seq
}

// numPending is the header of a batched direct get's answer that says how
// many messages on its subject follow it.
const numPending = "Nats-Num-Pending"

// Len returns the number of items on subject of stream, whose consumer is
// c, that c has not handed out, and of those it handed out and has not
// seen acknowledged; nc reaches the stream's servers. The consumer counts
// the first a moment after they are stored, on a goroutine of the
// server's: those are counted in the stream instead, with a direct get
// (the stream must allow them) of the first after the last handed out,
// whose answer says how many follow it. An item handed out or
// acknowledged between the two requests may be counted twice: Len may be
// high, never low.
func Len(ctx context.Context, nc *nats.Conn, c jetstream.Consumer, stream, subject string) (int, error) {
	info, err := c.Info(ctx)
	if err != nil {
		return 0, err
	}
	req, err := json.Marshal(map[string]any{"seq": info.Delivered.Stream + 1, "next_by_subj": subject, "batch": 1})
	if err != nil {
		return 0, err
	}
	m, err := nc.RequestWithContext(ctx, "$JS.API.DIRECT.GET."+stream, req)
	if err != nil {
		return 0, err
	}
	if m.Header.Get("Status") == "404" {
		return info.NumAckPending, nil // nothing after the last handed out
	}
	after, err := strconv.Atoi(m.Header.Get(numPending))
	if err != nil || m.Header.Get("Status") != "" {
		return 0, fmt.Errorf("counting the items not handed out: status %q %q, %q pending", m.Header.Get("Status"), m.Header.Get("Description"), m.Header.Get(numPending))
	}
	return info.NumAckPending + 1 + after, nil
}
