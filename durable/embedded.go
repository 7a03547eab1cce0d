package durable

import (
	"crypto/tls"
	"fmt"
	"time"

	"github.com/evolvekit/evolve/durable/internal/damage"
	"github.com/evolvekit/evolve/durable/internal/dirlock"
	"github.com/evolvekit/evolve/durable/internal/embed"
	"github.com/evolvekit/evolve/durable/internal/natslog"
	"github.com/nats-io/nats-server/v2/server"
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
	if err := embed.Writable(e.Dir); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStore, err)
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
	if s.srv, s.nc, err = embed.Start(opts, s.log, timeout); err != nil {
		s.close()
		return nil, fmt.Errorf("%w: %s: %v", ErrStore, e.Dir, err)
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
	return embed.Options(embed.Config{Dir: e.Dir, Listen: e.Listen, TLS: e.TLS, AllowInsecure: e.AllowInsecure, Sync: e.Sync}, ErrConfig)
}
