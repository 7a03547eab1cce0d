package durable

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/evolvekit/evolve/durable/internal/damage"
	"github.com/evolvekit/evolve/durable/internal/dirlock"
	"github.com/evolvekit/evolve/durable/internal/natslog"
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
	// AcceptLoss lets Open open a store that lost items since it was last
	// closed (see What the disk keeps in the package doc): without it,
	// Open returns an ErrDamaged naming them; with it, [Queue.Damage]
	// does, and the queue goes on without them.
	AcceptLoss bool
}

// open checks e, locks its directory, and starts the server.
func (e Embedded) open(timeout time.Duration) (*site, error) {
	opts, err := e.options()
	if err != nil {
		return nil, err
	}
	if err := writable(e.Dir); err != nil {
		return nil, err
	}
	s := &site{dir: e.Dir, replicas: 1, acceptLoss: e.AcceptLoss, log: &natslog.Log{}}
	if s.lock, err = dirlock.Lock(e.Dir); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrStore, e.Dir, err)
	}
	if s.lastClose, err = damage.Read(e.Dir); err == nil && s.lastClose != nil && s.lastClose.Changed && e.AcceptLoss {
		err = damage.Check(e.Dir, s.lastClose.Name)
	}
	if err != nil {
		s.close()
		return nil, fmt.Errorf("%w: %s: reading what its last close recorded: %v", ErrStore, e.Dir, err)
	}
	if s.srv, s.nc, err = start(opts, s.log, timeout); err != nil {
		s.close()
		return nil, err
	}
	if e.Listen != "" {
		s.url = s.srv.ClientURL()
	}
	return s, nil
}

// options checks e, and returns the options of its server.
func (e Embedded) options() (*server.Options, error) {
	if e.Dir == "" {
		return nil, invalid("an Embedded store needs Dir, the directory it keeps the queue in")
	}
	opts := &server.Options{ServerName: "evolve-durable", JetStream: true, StoreDir: e.Dir, SyncAlways: e.Sync,
		NoLog: true, NoSigs: true, DontListen: e.Listen == ""}
	if e.Listen == "" {
		return opts, nil
	}
	host, port, err := net.SplitHostPort(e.Listen)
	if err != nil {
		return nil, invalid("listen %q: %v", e.Listen, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return nil, invalid("listen %q: the port must be a number from 0 to 65535", e.Listen)
	}
	if err := loopback.Require(ErrConfig, "durable", e.Listen, host, e.TLS != nil, e.AllowInsecure); err != nil {
		return nil, err
	}
	if p == 0 {
		p = server.RANDOM_PORT
	}
	opts.Host, opts.Port = host, p
	if e.TLS != nil {
		opts.TLSConfig, opts.TLS, opts.TLSVerify = e.TLS.Clone(), true, e.TLS.ClientCAs != nil
	}
	return opts, nil
}

// start starts a server of opts, which logs its warnings to log, and
// returns it with a connection to it.
func start(opts *server.Options, log *natslog.Log, timeout time.Duration) (*server.Server, *nats.Conn, error) {
	dir := opts.StoreDir
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %v", ErrStore, dir, err)
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
			return nil, nil, fmt.Errorf("%w: %s: the embedded server did not start: %s", ErrStore, dir, log)
		}
		return nil, nil, fmt.Errorf("%w: %s: the embedded server did not start within %v (is the directory in use by another process, or its store corrupt?)%s", ErrStore, dir, timeout, log.Suffix())
	}
	if !srv.JetStreamEnabled() {
		stop()
		return nil, nil, fmt.Errorf("%w: %s: the embedded server could not open its store%s", ErrStore, dir, log.Suffix())
	}
	nc, err := nats.Connect("", nats.InProcessServer(srv), nats.Name("evolve-durable"), nats.MaxReconnects(-1))
	if err != nil {
		stop()
		return nil, nil, fmt.Errorf("%w: %s: connecting to the embedded server: %v", ErrStore, dir, err)
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
