package remote

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"maps"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/evolvekit/evolve/remote/internal/guard"
	"github.com/evolvekit/evolve/remote/internal/wire"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// Node is the place on the network where the masters of remote stages
// listen for their workers: a protoactor actor system with remoting, bound
// to one address. Several stages may share a node, each under its own name.
// Build one with [Listen]; Close it once its stages have ended.
type Node struct {
	sys   *actor.ActorSystem
	halt  func() // stops sys and its remoting
	addr  string
	tally *guard.Tally // the refusals not yet reported
	guard *guard.Guard

	mu     sync.Mutex
	stages map[string]stage // the stages running
	closed bool
}

// stage is what a node knows of a stage running on it: where its refusals
// go, and its heartbeat.
type stage struct {
	tell      func(refused int)
	heartbeat time.Duration
}

// Listen starts a node listening at addr, a host and port such as
// "127.0.0.1:7070"; port 0 picks a free one, which [Node.Addr] then
// reports. Workers give that address to [Work]. Bind to a concrete host
// (not "0.0.0.0" or ""), because the node tells its workers that address to
// answer to.
//
// A node off the loopback needs [WithTLS], so that only workers with a
// certificate it trusts reach it, or, on a network trusted as a whole,
// [AllowInsecure]; without either, Listen returns an [ErrConfig].
func Listen(addr string, opts ...ListenOption) (*Node, error) {
	var sec security
	for _, o := range opts {
		o(&sec)
	}
	creds, err := sec.credentials(addr)
	if err != nil {
		return nil, err
	}
	n := newNode()
	sys, halt, err := start(addr, "", n.guard, creds)
	if err != nil {
		n.tally.Stop()
		return nil, err
	}
	n.sys, n.halt, n.addr = sys, halt, sys.Address()
	return n, nil
}

// newNode returns a node that does not listen yet.
func newNode() *Node {
	n := &Node{stages: make(map[string]stage)}
	n.tally = guard.NewTally(refusalEvery, n.report)
	n.guard = guard.New(wirePackage, func(why string) { n.tally.Add("", why) })
	return n
}

// refusalEvery is how often refusals are counted in Status and logged.
const refusalEvery = time.Second

// refuse counts a message that the stage name ("" for the node) refused.
func (n *Node) refuse(name, why string) { n.tally.Add(name, why) }

// report logs the refusals counted, and counts them in the Status of the
// stages they concern: those of the node in each stage.
func (n *Node) report(counts map[string]int, last string) {
	total := 0
	for _, c := range counts {
		total += c
	}
	slog.Warn("remote: the node refused messages from peers", "addr", n.addr, "refused", total, "last", last)
	n.mu.Lock()
	stages := maps.Clone(n.stages)
	n.mu.Unlock()
	for name, s := range stages {
		if c := counts[""] + counts[name]; c > 0 {
			s.tell(c)
		}
	}
}

// Addr returns the address the node listens at, as workers must give it.
func (n *Node) Addr() string { return n.addr }

// Close stops the node: it stops listening, and its workers see their
// master gone. Stages still running on it lose their workers. Close waits
// for the node's connections to end, gracefully for about half a second,
// then at once (a worker stopped or cut off never ends its own), and may
// be called more than once.
func (n *Node) Close() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	n.mu.Unlock()
	n.halt()
	n.tally.Stop()
	return nil
}

// claim reserves name for a stage on the node, whose refusals go to tell,
// and whose workers beat once a heartbeat.
func (n *Node) claim(name string, heartbeat time.Duration, tell func(refused int)) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case n.closed:
		return fmt.Errorf("remote: the node at %s is closed", n.addr)
	case n.stages[name].tell != nil:
		return fmt.Errorf("remote: a stage named %q already runs on the node at %s", name, n.addr)
	}
	n.stages[name] = stage{tell: tell, heartbeat: heartbeat}
	n.quiet()
	return nil
}

// free gives name back once its stage has ended.
func (n *Node) free(name string) {
	n.mu.Lock()
	delete(n.stages, name)
	n.quiet()
	n.mu.Unlock()
}

// quiet lets a worker's new connection replace its old one once that has
// been silent for as long as the stages give a worker up: a worker cut
// off by a partition, whose old connection the node still holds open,
// comes back over a new one. With no stage running, none is replaced.
func (n *Node) quiet() {
	var most time.Duration
	for _, s := range n.stages {
		most = max(most, s.heartbeat)
	}
	n.guard.SetQuiet(heartbeatMisses * most)
}

// start makes an actor system with remoting listening at addr, which g
// guards from what peers must not send, and whose connections, both ways,
// are TLS with creds unless it is nil. Its
// logs are dropped: a remote stage reports what matters in its Status.
// Peers reach it at advertise, if not empty, and at addr otherwise. halt
// stops it (see stop).
func start(addr, advertise string, g *guard.Guard, creds *tls.Config) (sys *actor.ActorSystem, halt func(), err error) {
	host, port, err := splitAddr(addr)
	if err != nil {
		return nil, nil, err
	}
	if err := advertisable(advertise); err != nil {
		return nil, nil, err
	}
	// Messages to an actor that has gone (a late result to a stopped
	// master, say) are dead letters. protoactor counts them over an
	// interval, on a goroutine that lives as long: keep it short.
	sys = actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.DiscardHandler)
	}), actor.WithDeadLetterThrottleInterval(time.Millisecond))
	out := newOutlets()
	cfg := remote.Configure(host, port, transport(g, out, creds)...)
	cfg.AdvertisedHost = advertise
	// A peer that cannot be reached is given up after one try, not five
	// tries two seconds apart: a dead worker is requeued by its lease or
	// its Terminated, not by waiting.
	cfg.MaxRetryCount = 1
	rem := remote.NewRemote(sys, cfg)
	defer func() {
		if p := recover(); p != nil {
			out.cut()
			sys, halt, err = nil, nil, fmt.Errorf("remote: cannot listen at %s: %v", addr, p)
		}
	}()
	rem.Start()
	halt = func() { stop(sys, rem, out) }
	g.SetSelf(sys.Address())
	if creds != nil {
		if err := checkName(creds, sys.Address()); err != nil {
			halt()
			return nil, nil, err
		}
	}
	return sys, halt, nil
}

// transport returns the settings of a node's gRPC server and of its
// connections to peers: the guard's interceptors, bounded handshakes and
// queues, streams to peers that out can cut, and mutual TLS both ways with
// creds, or plaintext (protoactor's default dial options, which
// WithDialOptions replaces).
func transport(g *guard.Guard, out *outlets, creds *tls.Config) []remote.ConfigOption {
	server := append(g.ServerOptions(), grpc.ConnectionTimeout(handshakeWait))
	dial := []grpc.DialOption{out.dialOption(), grpc.WithTransportCredentials(insecure.NewCredentials())}
	if creds != nil {
		server = append(server, grpc.Creds(credentials.NewTLS(creds)))
		dial[1] = grpc.WithTransportCredentials(credentials.NewTLS(creds))
	}
	return []remote.ConfigOption{
		remote.WithEndpointWriterQueueSize(writerQueue),
		remote.WithEndpointManagerQueueSize(writerQueue),
		remote.WithDialOptions(dial...),
		remote.WithServerOptions(server...),
	}
}

// handshakeWait bounds how long a connection to a node may take to open
// (its TLS handshake and HTTP/2 preface): gRPC's default is two minutes,
// for which a connection that opens and says nothing (a peer stopped, or
// cut off, as it connected) would hold up the node's stop.
const handshakeWait = 2 * time.Second

// wirePackage is the protobuf package of the messages masters and workers
// exchange: the only ones, with those watching needs, that a node takes.
var wirePackage = string((&wire.Register{}).ProtoReflect().Descriptor().ParentFile().Package())

// writerQueue bounds the messages waiting for one peer's connection;
// protoactor's default of a million slots costs about 16 MB a peer.
const writerQueue = 4096

// stopWait bounds how long a node waits, as it stops, for its peers to
// close their connections to it: a live peer on any network does so well
// within it.
const stopWait = 500 * time.Millisecond

// stop shuts remoting down gracefully, waiting stopWait at most; then it
// ends the node's streams to its peers (one in its handshake among them)
// and stops its gRPC server at once, which ends the graceful stop too.
func stop(sys *actor.ActorSystem, rem *remote.Remote, out *outlets) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		shutdown(rem)
	}()
	timer := time.NewTimer(stopWait)
	select {
	case <-done:
	case <-timer.C:
		out.cut()
		rem.Shutdown(false)
		<-done
	}
	timer.Stop()
	out.cut()
	sys.Shutdown()
}

// shutdown stops rem gracefully. protoactor's graceful stop tells each
// incoming connection to end over a channel that the connection closes as
// it ends, and deletes from its map only later: a peer that left just
// before (a worker that finished or was killed) makes it send on a closed
// channel and panic. The gRPC server is then stopped at once, which ends
// whatever the graceful stop had not reached.
func shutdown(rem *remote.Remote) {
	defer func() {
		if recover() != nil {
			rem.Shutdown(false)
		}
	}()
	rem.Shutdown(true)
}
