package claim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Sweep deletes the objects of the bucket that no message of streams
// names, and the markers of deleted objects, and returns how many
// objects it deleted. It reads the headers of every message of streams
// through a consumer of its own, made and deleted here: call it only
// while no other process adds to the queue or consumes it, and while the
// queue's streams have no other consumer, as an embedded queue has as it
// opens (a work queue refuses a second consumer of the same messages).
// A bucket with no object costs one request.
func (s *Store) Sweep(ctx context.Context, streams ...Named) (int, error) {
	obs, err := s.open(ctx, false)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	infos, err := obs.List(ctx, jetstream.ListObjectsShowDeleted())
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	left := map[string]bool{}
	for _, info := range infos {
		if info.Deleted {
			_ = s.forget(ctx, info.Name)
		} else {
			left[info.Name] = true
		}
	}
	for _, st := range streams {
		if len(left) == 0 {
			break
		}
		if err := s.strike(ctx, st, left); err != nil {
			return 0, err
		}
	}
	n := 0
	for name := range left {
		if err := s.delete(ctx, name); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Named is a stream whose messages may name objects: those from sequence
// From (all for 0). A queue that keeps its acknowledged items, whose
// objects went with their acknowledgement, gives the first after its
// consumer's acknowledgement floor.
type Named struct {
	Stream jetstream.Stream
	From   uint64
}

// strike removes from left the objects the messages of st name, reading
// their headers until none is left or every message was read, or returns
// an error.
func (s *Store) strike(ctx context.Context, st Named, left map[string]bool) error {
	info, err := st.Stream.Info(ctx)
	if err != nil || info.State.Msgs == 0 || st.From > info.State.LastSeq {
		return err
	}
	deliver, from := jetstream.DeliverAllPolicy, uint64(0)
	if st.From > 0 {
		deliver, from = jetstream.DeliverByStartSequencePolicy, st.From
	}
	c, err := st.Stream.CreateConsumer(ctx, jetstream.ConsumerConfig{
		DeliverPolicy: deliver,
		OptStartSeq:   from,
		AckPolicy:     jetstream.AckExplicitPolicy, // as a work queue's consumers must
		AckWait:       time.Hour,                   // nothing comes twice while it reads
		MaxAckPending: -1,
		HeadersOnly:   true,
		// If this process dies while it reads, the servers remove the
		// consumer, and the queue's next Open does at once.
		InactiveThreshold: time.Minute,
	})
	if err != nil {
		return err
	}
	defer func() { _ = st.Stream.DeleteConsumer(context.WithoutCancel(ctx), c.CachedInfo().Name) }()
	for read, all := uint64(0), c.CachedInfo().NumPending; read < all && len(left) > 0; {
		batch, err := c.FetchNoWait(1024)
		if err != nil {
			return err
		}
		got := 0
		for m := range batch.Messages() {
			got++
			if r, err := Parse(m.Headers().Get(Header)); err == nil && r.Bucket == s.bucket {
				delete(left, r.Object)
			}
		}
		if err := batch.Error(); err != nil {
			return err
		}
		if got == 0 {
			// Deleting what the unread messages may name would leave
			// them dangling.
			return fmt.Errorf("read %d of the %d messages of stream %s", read, all, info.Config.Name)
		}
		read += uint64(got)
	}
	return nil
}
