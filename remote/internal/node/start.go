package node

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/evolvekit/evolve/remote/internal/guard"
	"github.com/evolvekit/evolve/remote/internal/wire"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// Start makes an actor system with remoting listening at addr, which g
// guards from what peers must not send, and whose connections, both ways,
// are TLS with creds unless it is nil. Its logs are dropped: a remote
// stage reports what matters in its Status and its parties' logs. Peers
// reach it at advertise, if not empty, and at addr otherwise. halt stops
// it: gracefully for stopWait, then at once (see stop). No message it
// takes or sends is over maxMessage bytes (see transport).
func Start(addr, advertise string, g *guard.Guard, creds *tls.Config, maxMessage int) (sys *actor.ActorSystem, halt func(), err error) {
	host, port, err := SplitAddr(addr)
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
	out.ends.events = sys.EventStream
	cfg := remote.Configure(host, port, transport(g, out, creds, maxMessage)...)
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
//
// Each gRPC message, either way, is at most maxMessage bytes: a peer that
// sends a larger one has its connection broken before the node holds it.
// protoactor puts up to a thousand of the messages queued for a peer in
// one gRPC message; here each goes alone, so that a message within the
// bound never makes a batch over it. Masters and workers batch their items
// in their messages (wire.Tasks, wire.Outcomes) by count and by bytes, so
// few messages go.
//
// Flow control has fixed windows of flowWindow bytes (see there).
func transport(g *guard.Guard, out *outlets, creds *tls.Config, maxMessage int) []remote.ConfigOption {
	server := append(g.ServerOptions(), grpc.ConnectionTimeout(handshakeWait),
		grpc.MaxRecvMsgSize(maxMessage), grpc.MaxSendMsgSize(maxMessage),
		grpc.InitialWindowSize(flowWindow), grpc.InitialConnWindowSize(flowWindow))
	dial := []grpc.DialOption{out.dialOption(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessage), grpc.MaxCallSendMsgSize(maxMessage)),
		grpc.WithInitialWindowSize(flowWindow), grpc.WithInitialConnWindowSize(flowWindow)}
	if creds != nil {
		server = append(server, grpc.Creds(credentials.NewTLS(creds)))
		dial[1] = grpc.WithTransportCredentials(credentials.NewTLS(creds))
	}
	return []remote.ConfigOption{
		remote.WithEndpointWriterQueueSize(writerQueue),
		remote.WithEndpointWriterBatchSize(1),
		remote.WithEndpointManagerQueueSize(writerQueue),
		remote.WithDialOptions(dial...),
		remote.WithServerOptions(server...),
	}
}

// flowWindow is the HTTP/2 flow-control window of every connection and
// stream, both ways. A fixed window turns off gRPC's bandwidth-delay
// estimation, which otherwise answers every message that finds no
// estimate under way with a PING (and a WINDOW_UPDATE), which the peer
// must wake to acknowledge: on the loopback, with one message in flight,
// that is two more frames and wake-ups for each message, on both sides,
// and about a sixth of a round trip. The window is the one the estimation
// grows to at most, so a far peer gets it from the first message rather
// than after a ramp. It is credit, not memory held: what a peer may send
// ahead of what the node has read, which protoactor reads at once.
const flowWindow = 16 << 20

// handshakeWait bounds how long a connection to a node may take to open
// (its TLS handshake and HTTP/2 preface): gRPC's default is two minutes,
// for which a connection that opens and says nothing (a peer stopped, or
// cut off, as it connected) would hold up the node's stop.
const handshakeWait = 2 * time.Second

// WirePackage is the protobuf package of the messages masters and workers
// exchange: the only ones, with those watching needs, that a node takes.
var WirePackage = string((&wire.Register{}).ProtoReflect().Descriptor().ParentFile().Package())

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
	out.ends.stop()
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
	out.close()
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
