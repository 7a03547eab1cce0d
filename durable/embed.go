package durable

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evolvekit/evolve/internal/loopback"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// embedded starts a NATS server with JetStream in this process, its store
// in cfg.Dir, and returns it with a connection to it.
func embedded(cfg Config) (*server.Server, *nats.Conn, error) {
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
		if err := loopback.Require(ErrConfig, "durable", cfg.Listen, host, cfg.TLS != nil, cfg.AllowInsecure); err != nil {
			return nil, nil, err
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
	log := &serverLog{}
	srv.SetLogger(log, false, false)
	srv.Start()
	if !ready(srv, log, cfg.ConnectTimeout) {
		srv.Shutdown()
		srv.WaitForShutdown()
		if log.failed() {
			return nil, nil, fmt.Errorf("%w: %s: the embedded server did not start: %s", ErrStore, cfg.Dir, log)
		}
		return nil, nil, fmt.Errorf("%w: %s: the embedded server did not start within %v (is the directory in use by another process, or its store corrupt?)%s", ErrStore, cfg.Dir, cfg.ConnectTimeout, log.suffix())
	}
	if !srv.JetStreamEnabled() {
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, nil, fmt.Errorf("%w: %s: the embedded server could not open its store%s", ErrStore, cfg.Dir, log.suffix())
	}
	nc, err := nats.Connect("", nats.InProcessServer(srv), nats.Name("evolve-durable"), nats.MaxReconnects(-1))
	if err != nil {
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, nil, fmt.Errorf("%w: %s: connecting to the embedded server: %v", ErrStore, cfg.Dir, err)
	}
	return srv, nc, nil
}

// ready waits until srv accepts connections, for at most timeout, and
// reports whether it does; it gives up at once if the server logged a
// fatal error, such as an address it cannot listen on.
func ready(srv *server.Server, log *serverLog, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		step := min(time.Until(deadline), 50*time.Millisecond)
		if srv.ReadyForConnections(max(step, 0)) {
			return true
		}
		if log.failed() || time.Now().After(deadline) {
			return false
		}
	}
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

// serverLog keeps the last warnings and errors an embedded NATS server
// logged, so that an Open that fails can say why; the server logs nothing
// else anywhere.
type serverLog struct {
	mu    sync.Mutex
	lines []string
	fatal bool
}

// keptLines is how many of the server's last warnings and errors a
// serverLog keeps.
const keptLines = 4

func (l *serverLog) keep(fatal bool, format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) == keptLines {
		l.lines = append(l.lines[:0], l.lines[1:]...)
	}
	l.lines = append(l.lines, fmt.Sprintf(format, v...))
	l.fatal = l.fatal || fatal
}

// failed reports whether the server logged a fatal error: it will not
// start.
func (l *serverLog) failed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fatal
}

// suffix returns ": " and the lines kept, or "" for none.
func (l *serverLog) suffix() string {
	if s := l.String(); s != "" {
		return ": " + s
	}
	return ""
}

// String returns the lines kept, most recent last, or "" for none.
func (l *serverLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "; ")
}

// Noticef ignores a notice.
func (l *serverLog) Noticef(string, ...any) {}

// Warnf keeps a warning.
func (l *serverLog) Warnf(format string, v ...any) { l.keep(false, format, v...) }

// Fatalf keeps a fatal error.
func (l *serverLog) Fatalf(format string, v ...any) { l.keep(true, format, v...) }

// Errorf keeps an error.
func (l *serverLog) Errorf(format string, v ...any) { l.keep(false, format, v...) }

// Debugf ignores a debug line.
func (l *serverLog) Debugf(string, ...any) {}

// Tracef ignores a trace line.
func (l *serverLog) Tracef(string, ...any) {}
