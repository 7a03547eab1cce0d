package durable_test

import (
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
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
