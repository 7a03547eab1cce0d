// Package embed starts the NATS server with JetStream that an embedded
// durable queue runs in its process.
package embed

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/evolvekit/evolve/durable/internal/natslog"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Start starts a server of opts, which logs its warnings to log, waits
// at most timeout for it to take connections, and returns it with a
// connection to it.
func Start(opts *server.Options, log *natslog.Log, timeout time.Duration) (*server.Server, *nats.Conn, error) {
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, nil, err
	}
	srv.SetLogger(log, false, false)
	srv.Start()
	stop := func() {
		srv.Shutdown()
		srv.WaitForShutdown()
	}
	if !ready(srv, log, timeout) {
		stop()
		if log.Failed() {
			return nil, nil, fmt.Errorf("the embedded server did not start: %s", log)
		}
		return nil, nil, fmt.Errorf("the embedded server did not start within %v (is the directory in use by another process, or its store corrupt?)%s", timeout, log.Suffix())
	}
	if !srv.JetStreamEnabled() {
		stop()
		return nil, nil, fmt.Errorf("the embedded server could not open its store%s", log.Suffix())
	}
	nc, err := nats.Connect("", nats.InProcessServer(srv), nats.Name("evolve-durable"), nats.MaxReconnects(-1))
	if err != nil {
		stop()
		return nil, nil, fmt.Errorf("connecting to the embedded server: %v", err)
	}
	return srv, nc, nil
}

// ready waits until srv accepts connections, for at most timeout, and
// reports whether it does; it gives up at once if the server logged a
// fatal error, such as an address it cannot listen on.
func ready(srv *server.Server, log *natslog.Log, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		step := min(time.Until(deadline), 50*time.Millisecond)
		if srv.ReadyForConnections(max(step, 0)) {
			return true
		}
		if log.Failed() || time.Now().After(deadline) {
			return false
		}
	}
}

// Writable makes sure dir exists and a file can be written in it.
func Writable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return fmt.Errorf("%s cannot be written: %v", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(filepath.Clean(name))
}
