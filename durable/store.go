package durable

import (
	"os"
	"time"

	"github.com/evolvekit/evolve/durable/internal/damage"
	"github.com/evolvekit/evolve/durable/internal/natslog"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Store is where a queue lives: [Embedded], a NATS server in this process
// that keeps the queue in a directory, or [Server], the NATS servers at a
// URL. Those two are the only ones, each with the settings that make
// sense for it alone, so that none can be given to the other; a program
// may pick one at run time (see the Example). Both are plain values, safe
// to share. A nil Store is refused by [Open] with an ErrConfig.
type Store interface {
	// open checks the settings, returning an ErrConfig for one out of
	// range, then starts or reaches the servers, waiting at most
	// timeout for them.
	open(timeout time.Duration) (*site, error)
}

// site is a store once open: the connection a queue speaks through, and
// what Close lets go of.
type site struct {
	nc       *nats.Conn
	srv      *server.Server // the embedded server; nil on a Server
	lock     *os.File       // the embedded server's lock on its directory, or nil
	dir      string         // the embedded server's directory; "" on a Server
	url      string         // what Queue.URL returns
	replicas int            // the copies of the streams and the consumer

	log        *natslog.Log   // the embedded server's warnings, or nil
	lastClose  *damage.Record // what the embedded store's last clean close recorded, or nil
	acceptLoss bool           // Embedded.AcceptLoss
	damage     error          // what Open found the embedded store had lost, or nil
}

// close drains the connection, stops the embedded server and lets go of
// its directory.
func (s *site) close() {
	if s.nc != nil {
		_ = s.nc.Drain()
		s.nc.Close()
	}
	if s.srv != nil {
		s.srv.Shutdown()
		s.srv.WaitForShutdown()
	}
	if s.lock != nil {
		s.lock.Close()
		s.lock = nil
	}
}
