package confirm_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/durable/internal/confirm"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"go.uber.org/goleak"
)

// TestWaitsEndWhenNoAnswerCanCome waits, from a goroutine each, for the
// answers to a batch of publishes, some to a subscriber that never
// answers, some to a stream, then ends what brings the answers: the
// connection, the server, or the Publisher. Every wait must end at once,
// long before its timeout, with an error for each unanswered publish,
// and leave no goroutine behind.
func TestWaitsEndWhenNoAnswerCanCome(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(*server.Server, *nats.Conn, *confirm.Publisher)
		want error
	}{
		{"the connection closes", func(_ *server.Server, nc *nats.Conn, _ *confirm.Publisher) { nc.Close() }, nats.ErrConnectionClosed},
		{"the server stops", func(srv *server.Server, _ *nats.Conn, _ *confirm.Publisher) { srv.Shutdown() }, nats.ErrConnectionClosed},
		{"the publisher closes", func(_ *server.Server, _ *nats.Conn, p *confirm.Publisher) { p.Close() }, confirm.ErrClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := start(t)
			before := goleak.IgnoreCurrent()
			nc := dial(t, srv)
			mute, err := nc.SubscribeSync("mute")
			if err != nil {
				t.Fatal(err)
			}
			p, err := confirm.New(nc)
			if err != nil {
				t.Fatal(err)
			}
			b := p.Batch()
			const muted, stored = 64, 256
			for range muted {
				if _, err := b.Publish(nats.NewMsg("mute")); err != nil {
					t.Fatal(err)
				}
			}
			errs := make([]error, muted+stored)
			var wg sync.WaitGroup
			wait := func(i int) {
				if i%2 == 0 {
					_, errs[i] = b.Wait(context.Background(), i, time.Minute)
				} else {
					errs[i] = b.Mark(i).Wait(time.Minute)
				}
			}
			for i := range muted {
				wg.Go(func() { wait(i) })
			}
			// Every wait for a muted publish is under way before the end.
			for deadline := time.Now().Add(10 * time.Second); confirm.Waiting(b) < muted; runtime.Gosched() {
				if time.Now().After(deadline) {
					t.Fatalf("%d of %d waits under way after 10s", confirm.Waiting(b), muted)
				}
			}
			// Publishes to the stream, answered or not as the end comes.
			for i := range stored {
				if _, err := b.Publish(nats.NewMsg("s.items")); err != nil {
					t.Fatal(err)
				}
				wg.Go(func() { wait(muted + i) })
			}
			began := time.Now()
			tc.end(srv, nc, p)
			done := make(chan struct{})
			go func() {
				wg.Wait()
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("waits still under way 10s after the end; each waits a minute")
			}
			t.Logf("the waits ended %v after the end", time.Since(began))
			for i, err := range errs {
				switch {
				case i < muted && !errors.Is(err, tc.want):
					t.Errorf("wait %d for an answer never sent: %v; want %v", i, err, tc.want)
				case i >= muted && err != nil && !errors.Is(err, tc.want) && !errors.Is(err, confirm.ErrNoStream):
					// A server that stops answers "no responders" once its
					// streams are gone, and before it closes the connection.
					t.Errorf("wait %d for the stream's answer: %v; want none, %v or %v", i, err, tc.want, confirm.ErrNoStream)
				}
			}
			if _, err := b.Publish(nats.NewMsg("s.items")); !errors.Is(err, tc.want) {
				t.Errorf("a publish after the end: %v; want %v", err, tc.want)
			}
			b.Close()
			_ = mute.Unsubscribe()
			nc.Close()
			if err := goleak.Find(before); err != nil {
				t.Error(err)
			}
		})
	}
}
