package remote

import (
	"crypto/tls"
	"net"
	"runtime"
	"time"

	"github.com/evolvekit/evolve/codec"
	"github.com/evolvekit/evolve/remote/internal/node"
	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel/trace"
)

// WorkerConfig tells [Work] where its master is and what the worker
// offers. The zero value of every field but Master has a sensible default.
type WorkerConfig struct {
	// Master is the address of the master's node, as [Node.Addr] reports
	// it, such as "127.0.0.1:7070". Required.
	Master string
	// Stage is the name of the stage to work for, its Config.Name. Default
	// "remote".
	Stage string
	// Slots is how many items the worker works on at once. Default
	// runtime.GOMAXPROCS(0).
	Slots int
	// Tags name the resources the worker has: items that need one of them
	// may come to it, as well as items that need none.
	Tags []string
	// Listen is the address the worker answers the master at. Default
	// "127.0.0.1:0": a free port on the loopback; a worker on another
	// machine than its master names a host the master can reach.
	Listen string
	// Advertise, when not empty, is the address the master reaches the
	// worker at, if not Listen's: a proxy's or a NAT's, which forwards to
	// Listen. A host and port, such as "10.0.0.7:7071".
	Advertise string
	// Codec must be the master's. Default codec.JSON.
	Codec codec.Codec
	// Connect bounds how long the worker tries to reach the master and be
	// registered before Work fails with ErrUnreachable. Default
	// DefaultConnect.
	Connect time.Duration
	// TLS makes the worker talk to its master over mutual TLS, as the
	// master's node does with NodeConfig.TLS (see the package doc, under
	// Peers). Its certificate must name the host of Listen, where the
	// master dials it.
	TLS *tls.Config
	// AllowInsecure lets the worker reach a master, or listen, off the
	// loopback without TLS, as NodeConfig.AllowInsecure lets a node.
	// Without either, a host name of Master or Listen that does not
	// resolve is refused as such (an ErrConfig that names it), before it
	// could be called off the loopback.
	AllowInsecure bool
	// Rejoin bounds how long a worker that lost its master tries to
	// register again, with backoff, before Work fails with ErrMasterGone
	// (see the package doc, under Failures). Default DefaultRejoin.
	Rejoin time.Duration
	// Prefetch is how many items the worker would hold beyond its slots,
	// waiting for one (see the package doc, under Prefetch): the master
	// grants at most its Config.MaxPrefetch. Default Slots; NoPrefetch
	// asks for none.
	Prefetch int
	// Grace bounds how long Work waits, once its work's context has
	// ended, for the work calls still running to return: a call that
	// ignores its context is abandoned then, and Work returns an error
	// wrapping ErrAbandoned that names its item. Default DefaultGrace.
	Grace time.Duration
	// Health, when not empty, is a host and port at which the worker
	// serves its health over HTTP, for a supervisor to read: GET /healthz
	// answers 200 "ok", or 503 and the items once the worker is wedged
	// (see the package doc, under Hung work), so that a liveness probe
	// restarts it. It serves only that, in the clear; ":8081" listens on
	// every interface, as a probe from outside the machine needs.
	Health string
	// EndWhenWedged makes Work end, with an error wrapping ErrWedged that
	// names the hung items, once the worker is wedged, so that the process
	// can exit and whatever supervises it start it again.
	EndWhenWedged bool
	// MaxMessage bounds each message between the worker and its master,
	// as NodeConfig.MaxMessage does. Default DefaultMaxMessage.
	MaxMessage int
	// Log takes what the worker has to say beyond Work's error: that it
	// lost its master and rejoins it, rejoined it, or refused what a peer
	// sent. The zero Logger writes nothing.
	Log zerolog.Logger
	// TracerProvider, when not nil, traces each attempt at an item as a
	// span "work <stage>", a child of the item's span on the master (see
	// docs/traces.md), under which the work runs. Without one, the work's
	// context still carries the item's span context.
	TracerProvider trace.TracerProvider
}

// The defaults of WorkerConfig.
const (
	DefaultConnect = 5 * time.Second
	DefaultRejoin  = time.Minute
	DefaultGrace   = 10 * time.Second
)

// addrs returns the addresses the worker's connections use: where it
// listens, where the master reaches it, and the master's.
func (c WorkerConfig) addrs() []string {
	if c.Advertise != "" {
		return []string{c.Listen, c.Advertise, c.Master}
	}
	return []string{c.Listen, c.Master}
}

// validate reports the first setting out of range.
func (c WorkerConfig) validate() error {
	switch {
	case c.Master == "":
		return invalid("master address must not be empty")
	case c.Slots < 0:
		return invalid("slots must not be negative, got %d", c.Slots)
	case c.Connect < 0:
		return invalid("connect must not be negative, got %v", c.Connect)
	case c.Rejoin < 0:
		return invalid("rejoin must not be negative, got %v", c.Rejoin)
	case c.Prefetch < NoPrefetch:
		return invalid("prefetch must be NoPrefetch (-1), 0 for the default or positive, got %d", c.Prefetch)
	case c.Grace < 0:
		return invalid("grace must not be negative, got %v", c.Grace)
	}
	if _, err := node.Bound(c.MaxMessage); err != nil {
		return err
	}
	if c.Health != "" {
		if _, _, err := net.SplitHostPort(c.Health); err != nil {
			return invalid("health address %q is not host:port: %v", c.Health, err)
		}
	}
	for _, t := range c.Tags {
		if t == "" {
			return invalid("tags must not be empty strings")
		}
	}
	return nil
}

// withDefaults fills in the zero settings.
func (c WorkerConfig) withDefaults() WorkerConfig {
	if c.Stage == "" {
		c.Stage = "remote"
	}
	if c.Slots == 0 {
		c.Slots = runtime.GOMAXPROCS(0)
	}
	if c.Listen == "" {
		c.Listen = "127.0.0.1:0"
	}
	if c.Codec == nil {
		c.Codec = codec.JSON
	}
	if c.Connect == 0 {
		c.Connect = DefaultConnect
	}
	if c.Rejoin == 0 {
		c.Rejoin = DefaultRejoin
	}
	switch c.Prefetch {
	case 0:
		c.Prefetch = c.Slots
	case NoPrefetch:
		c.Prefetch = 0
	}
	if c.Grace == 0 {
		c.Grace = DefaultGrace
	}
	c.MaxMessage, _ = node.Bound(c.MaxMessage)
	return c
}
