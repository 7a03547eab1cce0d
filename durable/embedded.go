package durable

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/evolvekit/evolve/internal/loopback"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Embedded is a [Store] kept by a NATS server with JetStream that runs in
// this process, in a directory: nothing else is needed. Only one process
// at a time may open a directory. Its zero value has no Dir, and [Open]
// refuses it with an ErrConfig.
type Embedded struct {
	// Dir is where the server keeps the queue; it is created if it does
	// not exist.
	Dir string
	// Listen also lets other processes reach the server, at this
	// host:port (port 0 picks a free one; see [Queue.URL]). By default
	// the server listens on no port: only this process reaches it. Off
	// the loopback it requires TLS, or AllowInsecure.
	Listen string
	// TLS is the server's own TLS configuration, with Listen:
	// Certificates, and ClientCAs to require client certificates
	// (mtls.Load makes one from three PEM files).
	TLS *tls.Config
	// AllowInsecure lets Listen be an address off the loopback without
	// TLS.
	AllowInsecure bool
	// Sync makes the server write every message and acknowledgement
	// through to the disk before it confirms it: a power loss then loses
	// nothing confirmed, at a large cost in speed. By default the server
	// syncs every two minutes, which a crash of the process, not of the
	// machine, survives. See the package doc.
	Sync bool
}

// open checks e, locks its directory, and starts the server.
func (e Embedded) open(timeout time.Duration) (*site, error) {
	host, port, err := e.listen()
	if err != nil {
		return nil, err
	}
	if err := writable(e.Dir); err != nil {
		return nil, err
	}
	s := &site{dir: e.Dir, replicas: 1}
	if s.lock, err = lockDir(e.Dir); err != nil {
		return nil, err
	}
	if s.srv, s.nc, err = e.start(host, port, timeout); err != nil {
		s.close()
		return nil, err
	}
	if e.Listen != "" {
		s.url = s.srv.ClientURL()
	}
	return s, nil
}

// listen checks e, and returns the host and port to listen at, if any.
func (e Embedded) listen() (string, int, error) {
	if e.Dir == "" {
		return "", 0, invalid("an Embedded store needs Dir, the directory it keeps the queue in")
	}
	if e.Listen == "" {
		return "", 0, nil
	}
	host, port, err := net.SplitHostPort(e.Listen)
	if err != nil {
		return "", 0, invalid("listen %q: %v", e.Listen, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return "", 0, invalid("listen %q: the port must be a number from 0 to 65535", e.Listen)
	}
	if err := loopback.Require(ErrConfig, "durable", e.Listen, host, e.TLS != nil, e.AllowInsecure); err != nil {
		return "", 0, err
	}
	if p == 0 {
		p = server.RANDOM_PORT
	}
	return host, p, nil
}

// start starts the server, listening at host and port with e.Listen, and
// returns it with a connection to it.
func (e Embedded) start(host string, port int, timeout time.Duration) (*server.Server, *nats.Conn, error) {
	opts := &server.Options{
		ServerName: "evolve-durable",
		JetStream:  true,
		StoreDir:   e.Dir,
		SyncAlways: e.Sync,
		NoLog:      true,
		NoSigs:     true,
		DontListen: e.Listen == "",
	}
	if e.Listen != "" {
		opts.Host, opts.Port = host, port
		if e.TLS != nil {
			opts.TLSConfig = e.TLS.Clone()
			opts.TLS = true
			opts.TLSVerify = e.TLS.ClientCAs != nil
		}
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %v", ErrStore, e.Dir, err)
	}
	log := &serverLog{}
	srv.SetLogger(log, false, false)
	srv.Start()
	stop := func() {
		srv.Shutdown()
		srv.WaitForShutdown()
	}
	if !ready(srv, log, timeout) {
		stop()
		if log.failed() {
			return nil, nil, fmt.Errorf("%w: %s: the embedded server did not start: %s", ErrStore, e.Dir, log)
		}
		return nil, nil, fmt.Errorf("%w: %s: the embedded server did not start within %v (is the directory in use by another process, or its store corrupt?)%s", ErrStore, e.Dir, timeout, log.suffix())
	}
	if !srv.JetStreamEnabled() {
		stop()
		return nil, nil, fmt.Errorf("%w: %s: the embedded server could not open its store%s", ErrStore, e.Dir, log.suffix())
	}
	nc, err := nats.Connect("", nats.InProcessServer(srv), nats.Name("evolve-durable"), nats.MaxReconnects(-1))
	if err != nil {
		stop()
		return nil, nil, fmt.Errorf("%w: %s: connecting to the embedded server: %v", ErrStore, e.Dir, err)
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
