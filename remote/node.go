package remote

import (
	"crypto/tls"

	"github.com/evolvekit/evolve/remote/internal/node"
	"github.com/evolvekit/evolve/remote/internal/wire"
)

// Node is the place on the network where the masters of remote stages
// listen for their workers: a protoactor actor system with remoting, bound
// to one address. Several stages may share a node, each under its own
// name. Build one with [Listen]; Close it once its stages have ended.
type Node struct {
	n *node.Node
}

// NodeConfig says where a node listens and how its connections are
// protected. Its zero value listens on a free port of the loopback, in the
// clear.
type NodeConfig struct {
	// Addr is the host and port to listen at, such as "10.0.0.5:7070";
	// port 0 picks a free one, which [Node.Addr] then reports. Name a
	// concrete host, not "0.0.0.0" or "": the node tells its workers that
	// address to answer to. Default "127.0.0.1:0".
	Addr string
	// TLS makes every connection with the node's workers mutual TLS (see
	// the package doc, under Peers); package mtls loads one from files.
	// Off the loopback, a node needs it, or AllowInsecure.
	TLS *tls.Config
	// AllowInsecure lets a node listen off the loopback without TLS:
	// whoever reaches its port may then register as a worker, and
	// everything crosses the network in the clear. Keep it for networks
	// that are trusted as a whole, or tunnelled.
	AllowInsecure bool
	// MaxMessage bounds, in bytes, each message with the node's workers
	// (see the package doc, under Large items). Default DefaultMaxMessage.
	MaxMessage int
}

// DefaultMaxMessage is the default MaxMessage of both configs: 64 MiB.
const DefaultMaxMessage = wire.DefaultMaxMessage

// Listen starts a node as cfg says. Workers give its address ([Node.Addr])
// to [Work]. It returns an [ErrConfig] for an address that is not a
// concrete host and port, one off the loopback with neither TLS nor
// AllowInsecure (a host name that does not resolve is refused as such
// first), both of those, or a TLS configuration that is not mutual or
// whose certificate does not name the host it listens at, or a MaxMessage
// under a MiB.
func Listen(cfg NodeConfig) (*Node, error) {
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	max, err := node.Bound(cfg.MaxMessage)
	if err != nil {
		return nil, err
	}
	creds, err := node.Credentials(cfg.TLS, cfg.AllowInsecure, cfg.Addr)
	if err != nil {
		return nil, err
	}
	n, err := node.Listen(cfg.Addr, "", creds, max)
	if err != nil {
		return nil, err
	}
	return &Node{n: n}, nil
}

// Addr returns the address the node listens at, as workers must give it.
func (n *Node) Addr() string { return n.n.Addr() }

// Close stops the node: it stops listening, and its workers see their
// master gone. Stages still running on it lose their workers. Close waits
// for the node's connections to end, gracefully for about half a second,
// then at once (a worker stopped or cut off never ends its own), and may
// be called more than once.
func (n *Node) Close() error { return n.n.Close() }
