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

	"github.com/evolvekit/evolve/durable/internal/layout"
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

// Len returns the number of items consumer c has not handed out and of
// those it handed out and has not seen acknowledged.
func Len(ctx context.Context, c jetstream.Consumer) (int, error) {
	info, err := c.Info(ctx)
	if err != nil {
		return 0, err
	}
	return int(info.NumPending) + info.NumAckPending, nil
}
