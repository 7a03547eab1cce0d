//go:build !race

// The tests in this file play a hostile peer against a master with real
// sockets and real worker processes: a raw gRPC client that sends what
// protoactor would never send, and another protoactor node that sends
// system messages and forges its workers' messages. See process_test.go
// for why they do not run under the race detector.

package remote_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	premote "github.com/asynkron/protoactor-go/remote"
	"github.com/evolvekit/evolve/remote"
	"github.com/evolvekit/evolve/remote/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
)

// peer is a protoactor node of the test's own, playing a stranger.
type peer struct {
	sys *actor.ActorSystem
	me  *actor.PID // an actor that keeps the master's answers
	in  chan any
}

func newPeer(t *testing.T) *peer {
	t.Helper()
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.DiscardHandler)
	}))
	cfg := premote.Configure("127.0.0.1", 0, premote.WithEndpointWriterQueueSize(64), premote.WithEndpointManagerQueueSize(64))
	cfg.MaxRetryCount = 1
	rem := premote.NewRemote(sys, cfg)
	rem.Start()
	p := &peer{sys: sys, in: make(chan any, 16)}
	p.me = sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *wire.Welcome, *wire.Finished:
			p.in <- m
		}
	}))
	t.Cleanup(func() {
		rem.Shutdown(false)
		sys.Shutdown()
	})
	return p
}

// send sends m to the stage at addr as though from sender (the peer's
// actor if nil).
func (p *peer) send(addr, stage string, m any, sender *actor.PID) {
	if sender == nil {
		sender = p.me
	}
	p.sys.Root.RequestWithCustomSender(actor.NewPID(addr, stage), m, sender)
}

// register registers the peer's actor as a worker with slots and returns
// the master's answer.
func (p *peer) register(t *testing.T, addr string, slots uint32) *wire.Welcome {
	t.Helper()
	p.send(addr, "remote", &wire.Register{Stage: "remote", Slots: slots}, nil)
	deadline := time.After(5 * time.Second)
	for {
		select {
		case m := <-p.in:
			if w, ok := m.(*wire.Welcome); ok {
				return w
			}
		case <-deadline:
			t.Fatal("no Welcome")
			return nil
		}
	}
}

// refusedAtLeast waits until the master counted n refusals.
func refusedAtLeast(t *testing.T, h interface {
	Status(context.Context) (remote.Status, error)
}, n int) {
	t.Helper()
	start := time.Now()
	require.Eventually(t, func() bool {
		st, err := h.Status(context.Background())
		return err == nil && st.Refused >= n
	}, 5*time.Second, 10*time.Millisecond, "refusals counted")
	t.Logf("%d refusals counted in Status after %v", n, time.Since(start).Round(time.Millisecond))
}

func TestMalformedCallsDoNotCrashTheMaster(t *testing.T) {
	node, h, c := master(t, remote.Config[int]{})
	conn, err := grpc.Dial(node.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	client := premote.NewRemotingClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = client.ListProcesses(ctx, &premote.ListProcessesRequest{})
	require.Error(t, err, "protoactor panics on it")
	_, err = client.GetProcessDiagnostics(ctx, &premote.GetProcessDiagnosticsRequest{})
	require.Error(t, err)

	stream, err := client.Receive(ctx)
	require.NoError(t, err)
	require.NoError(t, stream.Send(&premote.RemoteMessage{MessageType: &premote.RemoteMessage_ConnectRequest{
		ConnectRequest: &premote.ConnectRequest{ConnectionType: &premote.ConnectRequest_ServerConnection{
			ServerConnection: &premote.ServerConnection{SystemId: "stranger", Address: "127.0.0.1:1"}}}}}))
	target := []*actor.PID{actor.NewPID(node.Addr(), "remote")}
	ask := []string{"evolve.remote.v1.Ask"}
	bad := []*premote.MessageBatch{
		{TypeNames: []string{"stranger.Unknown"}, Targets: target, Envelopes: []*premote.MessageEnvelope{{}}},
		{TypeNames: []string{"evolve.remote.v1.Unknown"}, Targets: target, Envelopes: []*premote.MessageEnvelope{{}}},
		{TypeNames: ask, Targets: target, Envelopes: []*premote.MessageEnvelope{{SerializerId: 9}}},
		{TypeNames: ask, Targets: target, Envelopes: []*premote.MessageEnvelope{{SerializerId: -1}}},
		{TypeNames: ask, Targets: target, Envelopes: []*premote.MessageEnvelope{{Target: 3}}},
		{TypeNames: ask, Targets: target, Envelopes: []*premote.MessageEnvelope{{Sender: 4}}},
		{TypeNames: ask, Targets: target, Envelopes: []*premote.MessageEnvelope{{TypeId: 2}}},
		{TypeNames: ask, Targets: target, Envelopes: []*premote.MessageEnvelope{{TypeId: -1}}},
	}
	for _, b := range bad {
		require.NoError(t, stream.Send(&premote.RemoteMessage{MessageType: &premote.RemoteMessage_MessageBatch{MessageBatch: b}}))
	}
	refusedAtLeast(t, h, 2+len(bad))

	// The master still serves.
	startWorker(t, node.Addr(), "remote", 4, "", "w", 0)
	post(t, h, 0, 20)
	c.await(t, 20, 10*time.Second)
	finish(t, h)
	c.checkOnce(t, 20)
}

func TestSystemMessagesFromAnotherNodeAreRefused(t *testing.T) {
	node, h, c := master(t, remote.Config[int]{})
	w := startWorker(t, node.Addr(), "remote", 4, "", "w", 0)
	eventually(t, h, 5*time.Second, "the worker registers", func(s remote.Status) bool { return len(s.Workers) == 1 })
	p := newPeer(t)
	stage := actor.NewPID(node.Addr(), "remote")
	p.sys.Root.Send(stage, &actor.PoisonPill{})
	proc, _ := p.sys.ProcessRegistry.Get(stage)
	proc.SendSystemMessage(stage, &actor.Stop{})
	// The worker's actor too: the master knows its address.
	worker := actor.NewPID(status(t, h).Workers[0].Addr, "$1")
	p.sys.Root.Send(worker, &actor.PoisonPill{})
	wproc, _ := p.sys.ProcessRegistry.Get(worker)
	wproc.SendSystemMessage(worker, &actor.Stop{})
	refusedAtLeast(t, h, 2)

	post(t, h, 0, 50)
	c.await(t, 50, 10*time.Second)
	finish(t, h)
	c.checkOnce(t, 50)
	assert.NoError(t, w.wait(t, 10*time.Second), "the worker ends when the stage does")
}

func TestForgedResultsAreRefused(t *testing.T) {
	const n = 20
	node, h, c := master(t, remote.Config[int]{})
	startWorker(t, node.Addr(), "remote", n, "", "honest", 500*time.Millisecond)
	eventually(t, h, 5*time.Second, "the worker registers", func(s remote.Status) bool { return len(s.Workers) == 1 })
	honest := status(t, h).Workers[0]
	post(t, h, 0, n)
	eventually(t, h, 5*time.Second, "the items are leased", func(s remote.Status) bool { return s.InFlight == n })

	p := newPeer(t)
	welcome := p.register(t, node.Addr(), 1)
	require.Empty(t, welcome.Refused)
	forged := &wire.Outcomes{Values: []byte{}}
	for i := range n {
		value := []byte(`{"V":-1,"Worker":"forger"}`)
		forged.Items = append(forged.Items, uint64(i))
		forged.Attempts = append(forged.Attempts, 1)
		forged.Sizes = append(forged.Sizes, uint32(len(value)))
		forged.Values = append(forged.Values, value...)
	}
	naming := func(id uint64) *wire.Outcomes {
		m := proto.Clone(forged).(*wire.Outcomes)
		m.Worker, m.Incarnation = id, welcome.Incarnation
		return m
	}
	p.send(node.Addr(), "remote", naming(welcome.Worker), nil) // from the forger, for items it does not hold
	p.send(node.Addr(), "remote", naming(honest.ID), nil)      // from the forger, naming the honest worker
	// and claiming to be the honest worker, whose actor is its first
	p.send(node.Addr(), "remote", naming(honest.ID), actor.NewPID(honest.Addr, "$1"))
	refusedAtLeast(t, h, n+2)

	c.await(t, n, 10*time.Second)
	finish(t, h)
	c.checkOnce(t, n)
	assert.Equal(t, map[string]int{"honest": n}, c.byWorker())
}

func TestForgedLeaveIsRefused(t *testing.T) {
	node, h, c := master(t, remote.Config[int]{})
	startWorker(t, node.Addr(), "remote", 4, "", "honest", 0)
	eventually(t, h, 5*time.Second, "the worker registers", func(s remote.Status) bool { return len(s.Workers) == 1 })
	honest := status(t, h).Workers[0]

	p := newPeer(t)
	p.send(node.Addr(), "remote", &wire.Leave{Worker: honest.ID}, nil) // not registered
	welcome := p.register(t, node.Addr(), 1)
	require.Empty(t, welcome.Refused)
	p.send(node.Addr(), "remote", &wire.Leave{Worker: honest.ID}, nil)                             // registered, naming another
	p.send(node.Addr(), "remote", &wire.Leave{Worker: honest.ID}, actor.NewPID(honest.Addr, "$1")) // claiming its address
	refusedAtLeast(t, h, 2)

	st := status(t, h)
	require.Len(t, st.Workers, 2, "the honest worker and the forger")
	assert.Equal(t, honest.ID, st.Workers[0].ID)
	post(t, h, 0, 40)
	c.await(t, 40, 10*time.Second)
	finish(t, h)
	c.checkOnce(t, 40)
}

func TestOverclaimingRegisterIsRefused(t *testing.T) {
	node, h, _ := master(t, remote.Config[int]{MaxSlots: 64})
	p := newPeer(t)
	welcome := p.register(t, node.Addr(), 1<<20)
	assert.Contains(t, welcome.Refused, "slots must be from 1 to 64")
	refusedAtLeast(t, h, 1)
	assert.Empty(t, status(t, h).Workers)
	welcome = p.register(t, node.Addr(), 64)
	assert.Empty(t, welcome.Refused, "at the ceiling is fine")
	assert.Len(t, status(t, h).Workers, 1)
}
