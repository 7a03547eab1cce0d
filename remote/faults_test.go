//go:build !race

// The tests in this file measure how a stage fares when what lies between
// master and worker goes silent, and how promptly a worker ends then: a
// master stopped (SIGSTOP) for good, and a network partition that drops
// every byte both ways without closing a connection, then heals. See
// process_test.go for why they do not run under the race detector.

package remote_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	premote "github.com/asynkron/protoactor-go/remote"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote"
	"github.com/evolvekit/evolve/remote/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
)

func TestWorkerOfAStoppedMasterEndsWithinItsWindow(t *testing.T) {
	const window = time.Second
	addr := freeAddr(t)
	m := startMaster(t, "master", addr, "frozen", 1000, 0, beat)
	w := startWorker(t, addr, "frozen", 2, "", "w", 5*time.Millisecond, opts("rejoin="+window.String()))
	m.await(t, "R 10 ", 10*time.Second)
	m.stopped(t)
	stopped := time.Now()
	noticed := w.await(t, "lost its master", 5*time.Second)
	gone := w.await(t, "the master is gone", noticed.at.Sub(stopped)+window+2*time.Second)
	require.Error(t, w.wait(t, 5*time.Second), "the worker fails once its window has passed")
	ended := time.Now()
	assert.Contains(t, gone.text, "heard nothing from it", "it gave up the silent master")
	assert.Less(t, ended.Sub(noticed.at), window+2*time.Second, "it ends within its window and a small bound")
	t.Logf("master stopped for good: noticed after %v (heartbeat %v); the worker gave up %v later (window %v) and exited %v after that",
		noticed.at.Sub(stopped).Round(time.Millisecond), beat, gone.at.Sub(noticed.at).Round(time.Millisecond), window,
		ended.Sub(gone.at).Round(time.Millisecond))
}

// frozen listens on the loopback and takes connections, but never reads
// or writes on them: a peer whose process was stopped as it accepted.
type frozen struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
	done  chan struct{}
}

// newFrozen starts a frozen peer; t's cleanup closes it and its
// connections.
func newFrozen(t *testing.T) *frozen {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	f := &frozen{ln: ln, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.mu.Lock()
			f.conns = append(f.conns, c)
			f.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-f.done
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, c := range f.conns {
			c.Close()
		}
	})
	return f
}

func (f *frozen) addr() string { return f.ln.Addr().String() }

// accepted returns the connections it took.
func (f *frozen) accepted() []net.Conn {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]net.Conn(nil), f.conns...)
}

func TestWorkEndsPromptlyWhileItsConnectionIsInItsHandshake(t *testing.T) {
	const connect = 500 * time.Millisecond
	f := newFrozen(t)
	start := time.Now()
	err := remote.Work(context.Background(), remote.WorkerConfig{Master: f.addr(), Connect: connect},
		func(_ context.Context, v int) (int, error) { return v, nil })
	took := time.Since(start)
	require.ErrorIs(t, err, remote.ErrUnreachable)
	// The check before the node starts waits connect for the master's
	// greeting, the registration connect for its answer; then the stop.
	assert.Less(t, took, 2*connect+2*time.Second, "Work ends promptly")
	t.Logf("a master frozen in the handshake: Work returned after %v (connect %v, twice)", took.Round(time.Millisecond), connect)
}

func TestNodeClosesPromptlyWhileAConnectionIsInItsHandshake(t *testing.T) {
	node, err := remote.Listen(remote.NodeConfig{})
	require.NoError(t, err)
	rt := agent.NewRuntime()
	_, err = remote.New[int, job](rt, remote.Config[int]{Node: node}, nil)
	require.NoError(t, err)
	f := newFrozen(t)
	// A peer that says it is the frozen one registers: the master dials
	// it, to watch it, and the dial never completes its handshake.
	conn, err := grpc.Dial(node.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stream, err := premote.NewRemotingClient(conn).Receive(ctx)
	require.NoError(t, err)
	require.NoError(t, stream.Send(&premote.RemoteMessage{MessageType: &premote.RemoteMessage_ConnectRequest{
		ConnectRequest: &premote.ConnectRequest{ConnectionType: &premote.ConnectRequest_ServerConnection{
			ServerConnection: &premote.ServerConnection{SystemId: "frozen", Address: f.addr()}}}}}))
	reg, err := proto.Marshal(&wire.Register{Stage: "remote", Slots: 1})
	require.NoError(t, err)
	require.NoError(t, stream.Send(&premote.RemoteMessage{MessageType: &premote.RemoteMessage_MessageBatch{MessageBatch: &premote.MessageBatch{
		TypeNames: []string{"evolve.remote.v1.Register"},
		Targets:   []*actor.PID{actor.NewPID(node.Addr(), "remote")},
		Senders:   []*actor.PID{actor.NewPID(f.addr(), "w")},
		Envelopes: []*premote.MessageEnvelope{{Sender: 1, MessageData: reg}},
	}}}))
	require.Eventually(t, func() bool { return len(f.accepted()) > 0 }, 5*time.Second, 5*time.Millisecond, "the master dials the peer")
	// And another connects to the node and says nothing.
	var dialer net.Dialer
	silent, err := dialer.DialContext(ctx, "tcp", node.Addr())
	require.NoError(t, err)
	defer silent.Close()
	require.NoError(t, rt.Shutdown(ctx))
	start := time.Now()
	require.NoError(t, node.Close())
	took := time.Since(start)
	// Half a second for the graceful stop, two for a connection to open.
	assert.Less(t, took, 4*time.Second, "Close ends promptly")
	t.Logf("peers frozen in the handshake both ways: Close returned after %v", took.Round(time.Millisecond))
}

func TestPartitionedWorkerIsGivenUpAndRejoinsOnceHealed(t *testing.T) {
	partition(t, false)
}

// A partition may lose the reset of a connection that one side gave up:
// the other then holds it open, silent, and the side that gave up comes
// back over a new connection from the same address.
func TestPartitionThatLeavesConnectionsHalfOpenIsHealed(t *testing.T) {
	partition(t, true)
}

// partition runs a stage with one worker, which reaches the master through
// one proxy and the master it through another, and cuts the network
// between them for ten heartbeats without closing a connection; with
// halfOpen, then resets the side of each connection that opened it and
// leaves the other open and silent. Once the network heals, the worker
// rejoins, and every item comes out once.
func partition(t *testing.T, halfOpen bool) {
	const n = 2000
	toMaster := newProxy(t, "")
	bind := freeAddr(t)
	toMaster.mu.Lock()
	toMaster.target = bind
	toMaster.mu.Unlock()
	node, err := remote.ListenAdvertising(bind, toMaster.addr())
	require.NoError(t, err)
	listen := freeAddr(t)
	toWorker := newProxy(t, listen)
	h, c := masterOn(t, node, remote.Config[int]{Name: "partition", Heartbeat: beat})
	w := startWorker(t, toMaster.addr(), "partition", 4, "", "w", time.Millisecond,
		opts("listen="+listen, "advertise="+toWorker.addr(), "rejoin=20s"))
	eventually(t, h, 10*time.Second, "the worker registers", func(s remote.Status) bool { return len(s.Workers) == 1 })
	was := status(t, h).Workers[0].ID
	require.Equal(t, toWorker.addr(), status(t, h).Workers[0].Addr, "the master reaches the worker through its proxy")
	done := make(chan struct{})
	go func() { defer close(done); post(t, h, 0, n) }()
	c.await(t, n/4, 20*time.Second)

	toMaster.partition()
	toWorker.partition()
	cut := time.Now()
	eventually(t, h, 5*time.Second, "the master gives the worker up", func(s remote.Status) bool { return len(s.Workers) == 0 })
	givenUp := time.Now()
	assert.Positive(t, status(t, h).Requeued, "its items are queued again")
	noticed := w.await(t, "lost its master", 5*time.Second)
	if halfOpen {
		require.Positive(t, toMaster.halfOpen(), "the worker's connection to the master")
		require.Positive(t, toWorker.halfOpen(), "the master's connection to the worker")
	}
	time.Sleep(time.Until(cut.Add(10 * beat)))
	toMaster.heal()
	toWorker.heal()
	healed := time.Now()
	back := newID(t, h, was, 10*time.Second)
	<-done
	finish(t, h)
	c.checkOnce(t, n)
	w.alive(t)
	t.Logf("partition of %v (heartbeat %v, half-open %v): the master gave the worker up after %v, the worker noticed after %v; rejoined %v after healing; status %+v",
		healed.Sub(cut).Round(time.Millisecond), beat, halfOpen, givenUp.Sub(cut).Round(time.Millisecond), noticed.at.Sub(cut).Round(time.Millisecond),
		back.Sub(healed).Round(time.Millisecond), status(t, h).Load)
	assert.NoError(t, w.wait(t, 10*time.Second), "the worker ends cleanly once the stage has finished")
}
