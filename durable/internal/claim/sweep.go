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
func (s *Store) Sweep(ctx context.Context, streams ...jetstream.Stream) (int, error) {
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

// strike removes from left the objects the messages of st name, reading
// their headers until none is left or every message was read, or returns
// an error.
func (s *Store) strike(ctx context.Context, st jetstream.Stream, left map[string]bool) error {
	info, err := st.Info(ctx)
	if err != nil || info.State.Msgs == 0 {
		return err
	}
	c, err := st.CreateConsumer(ctx, jetstream.ConsumerConfig{
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
	defer func() { _ = st.DeleteConsumer(context.WithoutCancel(ctx), c.CachedInfo().Name) }()
	for read := uint64(0); read < info.State.Msgs && len(left) > 0; {
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
			return fmt.Errorf("read %d of the %d messages of stream %s", read, info.State.Msgs, info.Config.Name)
		}
		read += uint64(got)
	}
	return nil
}
