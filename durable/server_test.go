package durable_test

import (
	"context"
	"testing"
	"time"

	"github.com/evolvekit/evolve/durable"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// startServer starts a NATS server with JetStream in the test process, on
// 127.0.0.1 at a free port, with the options opts adds (its address and
// store are set here), and stops it when the test ends.
func startServer(t *testing.T, opts server.Options) *server.Server {
	t.Helper()
	opts.Host, opts.Port, opts.JetStream, opts.StoreDir = "127.0.0.1", -1, true, t.TempDir()
	opts.NoLog, opts.NoSigs = true, true
	srv, err := server.NewServer(&opts)
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(func() {
		srv.Shutdown()
		srv.WaitForShutdown()
	})
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("the server did not start")
	}
	return srv
}

// fill adds n keyed items (see keyed) to q and checks that it holds them.
func fill(ctx context.Context, t *testing.T, q *durable.Queue[int], n int) {
	t.Helper()
	if err := q.AddMany(ctx, keyed(n)); err != nil {
		t.Fatal(err)
	}
	if got, err := q.Len(ctx); err != nil || got != n {
		t.Fatalf("Len = %d, %v; want %d", got, err, n)
	}
}

// jetStream connects to the server at url with opts, for a test that looks
// at the queue's streams itself, and closes the connection when the test
// ends.
func jetStream(t *testing.T, url string, opts ...nats.Option) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}
