package durable

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// embedded starts a NATS server with JetStream in this process, its store
// in cfg.Dir, and returns it with a connection to it.
func embedded(cfg Config) (*server.Server, *nats.Conn, error) {
	if err := writable(cfg.Dir); err != nil {
		return nil, nil, err
	}
	opts := &server.Options{
		ServerName: "evolve-durable",
		JetStream:  true,
		StoreDir:   cfg.Dir,
		SyncAlways: cfg.Sync,
		NoLog:      true,
		NoSigs:     true,
		DontListen: cfg.Listen == "",
	}
	if cfg.Listen != "" {
		host, port, err := net.SplitHostPort(cfg.Listen)
		if err != nil {
			return nil, nil, invalid("listen %q: %v", cfg.Listen, err)
		}
		p, err := strconv.Atoi(port)
		if err != nil || p < 0 || p > 65535 {
			return nil, nil, invalid("listen %q: the port must be a number from 0 to 65535", cfg.Listen)
		}
		if p == 0 {
			p = server.RANDOM_PORT
		}
		if cfg.TLS == nil && !cfg.AllowInsecure && !loopback(host) {
			return nil, nil, invalid("listen %q is off the loopback: give TLS, or set AllowInsecure", cfg.Listen)
		}
		opts.Host, opts.Port = host, p
		if cfg.TLS != nil {
			opts.TLSConfig = cfg.TLS.Clone()
			opts.TLS = true
			opts.TLSVerify = cfg.TLS.ClientCAs != nil
		}
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %v", ErrStore, cfg.Dir, err)
	}
	srv.Start()
	if !srv.ReadyForConnections(cfg.ConnectTimeout) {
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, nil, fmt.Errorf("%w: %s: the embedded server did not start within %v (is the directory in use by another process, or its store corrupt?)", ErrStore, cfg.Dir, cfg.ConnectTimeout)
	}
	if !srv.JetStreamEnabled() {
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, nil, fmt.Errorf("%w: %s: the embedded server could not open its store", ErrStore, cfg.Dir)
	}
	nc, err := nats.Connect("", nats.InProcessServer(srv), nats.Name("evolve-durable"), nats.MaxReconnects(-1))
	if err != nil {
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, nil, fmt.Errorf("%w: %s: connecting to the embedded server: %v", ErrStore, cfg.Dir, err)
	}
	return srv, nc, nil
}

// writable makes sure dir exists and a file can be written in it.
func writable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%w: %v", ErrStore, err)
	}
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return fmt.Errorf("%w: %s cannot be written: %v", ErrStore, dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(filepath.Clean(name))
}

// loopback reports whether host names the loopback only.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
