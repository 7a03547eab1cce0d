// Package sweep purges, now and then, the items of a durable queue that
// keeps its acknowledged items: in such a queue an item stays in its
// stream, acknowledged, until its key's dedupe window has ended, so that
// the servers, which rebuild their dedupe from the messages a stream
// holds when they restart, still know its key (the item is its own
// marker). Once it is acknowledged and its window is over, it goes.
package sweep

import (
	"context"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Config is what a Sweeper sweeps.
type Config struct {
	Consumer jetstream.Consumer // the queue's consumer, whose acknowledgement floor says what is done
	Stream   jetstream.Stream   // the queue's stream
	Subject  string             // the subject of the items to purge
	Window   time.Duration      // the dedupe window
	Timeout  time.Duration      // how long a sweep waits for the servers
	// Written, if set, is told a floor the servers have written for good:
	// one read a sweep or more ago (a consumer's state is written at most
	// every 100 ms).
	Written func(floor uint64)
}

// Sweeper purges the acknowledged items of a queue whose window is over,
// every quarter window (between a second and a minute), on a goroutine of
// its own from Start until Stop, which waits for it.
type Sweeper struct {
	cfg  Config
	stop chan struct{}
	wg   sync.WaitGroup
	seen Floors
}

// Start starts a Sweeper of cfg.
func Start(cfg Config) *Sweeper {
	s := &Sweeper{cfg: cfg, stop: make(chan struct{})}
	s.wg.Go(func() {
		t := time.NewTicker(Every(cfg.Window))
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case now := <-t.C:
				ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
				_ = s.Once(ctx, now) // the next sweep tries again
				cancel()
			}
		}
	})
	return s
}

// Stop stops s, and waits for it; on nil, it does nothing.
func (s *Sweeper) Stop() {
	if s != nil {
		close(s.stop)
		s.wg.Wait()
	}
}

// Every returns how often a queue of dedupe window w sweeps: a quarter
// of it, between a second and a minute.
func Every(w time.Duration) time.Duration { return min(max(w/4, time.Second), time.Minute) }

// Once sweeps now: it reads the consumer's acknowledgement floor, and
// purges the items up to the highest floor it read a window or more ago:
// each of those was added before that reading, so its window is over.
func (s *Sweeper) Once(ctx context.Context, now time.Time) error {
	info, err := s.cfg.Consumer.Info(ctx)
	if err != nil {
		return err
	}
	if s.cfg.Written != nil {
		if written, ok := s.seen.Last(); ok {
			s.cfg.Written(written)
		}
	}
	s.seen.Add(now, info.AckFloor.Stream)
	upTo := s.seen.Before(now.Add(-s.cfg.Window))
	if upTo == 0 {
		return nil
	}
	return s.cfg.Stream.Purge(ctx, jetstream.WithPurgeSubject(s.cfg.Subject), jetstream.WithPurgeSequence(upTo+1))
}

// Floors is a record of acknowledgement floors read, and when: those a
// window or more old are the ones a purge may reach; the newest of them
// is kept, the older dropped.
type Floors struct {
	at    []time.Time
	floor []uint64
}

// Add records that the floor read at now was floor.
func (f *Floors) Add(now time.Time, floor uint64) {
	f.at, f.floor = append(f.at, now), append(f.floor, floor)
}

// Last returns the floor read last, if any.
func (f *Floors) Last() (uint64, bool) {
	if len(f.floor) == 0 {
		return 0, false
	}
	return f.floor[len(f.floor)-1], true
}

// Before returns the highest floor read at or before t, 0 for none, and
// forgets those read before it.
func (f *Floors) Before(t time.Time) uint64 {
	i := 0
	for i < len(f.at) && !f.at[i].After(t) {
		i++
	}
	if i == 0 {
		return 0
	}
	upTo := f.floor[i-1]
	f.at, f.floor = f.at[i-1:], f.floor[i-1:]
	return upTo
}
