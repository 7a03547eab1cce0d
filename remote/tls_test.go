//go:build !race

// The tests in this file run master and workers over mutual TLS, with real
// sockets on 127.0.0.1 and certificates made by the test; the workers run
// in the test's process. See process_test.go for why they do not run under
// the race detector.

package remote_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/asynkron/protoactor-go/actor"
	premote "github.com/asynkron/protoactor-go/remote"
)

// secureMaster starts a node with files as its TLS, and a master on it.
func secureMaster(t *testing.T, files *tls.Config) (*remote.Node, agent.Handle[int, remote.Status], *collector) {
	t.Helper()
	node, err := remote.Listen(remote.NodeConfig{TLS: files})
	require.NoError(t, err)
	rt := agent.NewRuntime()
	c := newCollector()
	h, err := remote.New[int, job](rt, remote.Config[int]{Node: node}, c.sink)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		assert.NoError(t, rt.Shutdown(ctx))
		assert.NoError(t, node.Close())
	})
	return node, h, c
}

// secureWorker runs a worker in this process, with files as its TLS, and
// returns where Work's error comes; t's cleanup ends it.
func secureWorker(t *testing.T, master string, files *tls.Config, label string) <-chan error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done, ended := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(ended)
		done <- remote.Work(ctx, remote.WorkerConfig{Master: master, Slots: 4, TLS: files, Connect: 5 * time.Second},
			func(_ context.Context, v int) (job, error) { return job{V: 2 * v, Worker: label}, nil })
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-ended:
		case <-time.After(10 * time.Second):
			t.Error("the worker did not end")
		}
	})
	return done
}

// workError waits, within d, for the error Work returned.
func workError(t *testing.T, done <-chan error, d time.Duration) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("Work did not return within %v", d)
		return nil
	}
}

func TestTLSWorkerWithTheRightCertificateWorks(t *testing.T) {
	const n = 200
	ca := newAuthority(t, "ca")
	node, h, c := secureMaster(t, ca.node(t, ca, "master", nil))
	done := secureWorker(t, node.Addr(), ca.node(t, ca, "worker", nil), "w")
	post(t, h, 0, n)
	c.await(t, n, 10*time.Second)
	finish(t, h)
	c.checkOnce(t, n)
	assert.Equal(t, map[string]int{"w": n}, c.byWorker())
	assert.NoError(t, workError(t, done, 10*time.Second), "the worker ends cleanly with the stage")
}

func TestTLSWorkerTheMasterDoesNotTrustIsRefused(t *testing.T) {
	ca, other := newAuthority(t, "ca"), newAuthority(t, "other")
	node, h, _ := secureMaster(t, ca.node(t, ca, "master", nil))
	start := time.Now()
	err := workError(t, secureWorker(t, node.Addr(), other.node(t, ca, "stranger", nil), "x"), 10*time.Second)
	t.Logf("untrusted worker certificate: Work failed after %v", time.Since(start).Round(time.Millisecond))
	require.ErrorIs(t, err, remote.ErrUnreachable)
	assert.ErrorContains(t, err, "the master refused the worker's certificate")
	assert.Empty(t, status(t, h).Workers)
}

func TestTLSMasterTheWorkerDoesNotTrustIsRefused(t *testing.T) {
	ca, other := newAuthority(t, "ca"), newAuthority(t, "other")
	node, h, _ := secureMaster(t, other.node(t, ca, "impostor", nil))
	err := workError(t, secureWorker(t, node.Addr(), ca.node(t, ca, "worker", nil), "w"), 10*time.Second)
	require.ErrorIs(t, err, remote.ErrUnreachable)
	var unknown x509.UnknownAuthorityError
	assert.ErrorAs(t, err, &unknown, "the worker does not trust the master's authority: %v", err)
	assert.Empty(t, status(t, h).Workers)
}

func TestTLSPeersWithoutTheRightCertificateGetNothingThrough(t *testing.T) {
	ca, other := newAuthority(t, "ca"), newAuthority(t, "other")
	node, h, _ := secureMaster(t, ca.node(t, ca, "master", nil))
	pool := ca.Pool()
	trusted := ca.Pair(t, "client", nil)
	stranger := other.Pair(t, "stranger", nil)
	over := func(cert ...tls.Certificate) grpc.DialOption {
		return grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool, Certificates: cert}))
	}
	for name, creds := range map[string]grpc.DialOption{
		"in the clear":               grpc.WithTransportCredentials(insecure.NewCredentials()),
		"with no certificate":        over(),
		"with another's certificate": over(stranger),
	} {
		assert.Error(t, sendBadBatch(t, node.Addr(), creds, func() { t.Errorf("%s: a batch went through", name) }), name)
	}
	// A peer with the right certificate is authenticated, not trusted: the
	// guard still refuses what it sends, and counts only that refusal.
	require.NoError(t, sendBadBatch(t, node.Addr(), over(trusted), func() { refusedAtLeast(t, h, 1) }))
	st := status(t, h)
	assert.Equal(t, 1, st.Refused, "only the authenticated peer reached the guard")
	assert.Empty(t, st.Workers)
}

// sendBadBatch connects to the node at addr as a raw gRPC client with
// creds, says it is a node, and sends a message of a type the node refuses;
// then it calls sent before it closes the connection. It returns the first
// error it meets, or nil once the node answered the connect request and
// took the message.
func sendBadBatch(t *testing.T, addr string, creds grpc.DialOption, sent func()) error {
	t.Helper()
	conn, err := grpc.Dial(addr, creds)
	require.NoError(t, err)
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	stream, err := premote.NewRemotingClient(conn).Receive(ctx)
	if err != nil {
		return err
	}
	err = stream.Send(&premote.RemoteMessage{MessageType: &premote.RemoteMessage_ConnectRequest{
		ConnectRequest: &premote.ConnectRequest{ConnectionType: &premote.ConnectRequest_ServerConnection{
			ServerConnection: &premote.ServerConnection{SystemId: "peer", Address: "127.0.0.1:1"}}}}})
	if err != nil {
		return err
	}
	if _, err := stream.Recv(); err != nil {
		return err
	}
	err = stream.Send(&premote.RemoteMessage{MessageType: &premote.RemoteMessage_MessageBatch{MessageBatch: &premote.MessageBatch{
		TypeNames: []string{"stranger.Unknown"},
		Targets:   []*actor.PID{actor.NewPID(addr, "remote")},
		Envelopes: []*premote.MessageEnvelope{{}},
	}}})
	if err == nil {
		sent()
	}
	return err
}

func TestTLSCertificateMustNameTheHostItListensAt(t *testing.T) {
	ca := newAuthority(t, "ca")
	elsewhere := ca.node(t, ca, "elsewhere", func(c *x509.Certificate) { c.IPAddresses = []net.IP{net.IPv4(10, 0, 0, 1)} })
	_, err := remote.Listen(remote.NodeConfig{TLS: elsewhere})
	require.ErrorIs(t, err, remote.ErrConfig)
	assert.ErrorContains(t, err, `does not name "127.0.0.1"`)

	// A name all the nodes share does, whatever their addresses.
	shared := ca.node(t, ca, "shared", func(c *x509.Certificate) { c.IPAddresses, c.DNSNames = nil, []string{"evolve.test"} })
	shared.ServerName = "evolve.test"
	node, h, c := secureMaster(t, shared)
	worker := ca.node(t, ca, "worker", func(c *x509.Certificate) { c.IPAddresses, c.DNSNames = nil, []string{"evolve.test"} })
	worker.ServerName = "evolve.test"
	done := secureWorker(t, node.Addr(), worker, "w")
	post(t, h, 0, 20)
	c.await(t, 20, 10*time.Second)
	finish(t, h)
	c.checkOnce(t, 20)
	assert.NoError(t, workError(t, done, 10*time.Second))
}

func TestTLSOnOneSideOnlyIsReportedAtOnce(t *testing.T) {
	ca := newAuthority(t, "ca")
	node, h, _ := secureMaster(t, ca.node(t, ca, "master", nil))
	err := workError(t, secureWorker(t, node.Addr(), nil, "clear"), 10*time.Second)
	require.ErrorIs(t, err, remote.ErrUnreachable)
	assert.ErrorContains(t, err, "does it expect TLS?")
	assert.Empty(t, status(t, h).Workers)

	clear, err := remote.Listen(remote.NodeConfig{})
	require.NoError(t, err)
	defer clear.Close()
	err = workError(t, secureWorker(t, clear.Addr(), ca.node(t, ca, "worker", nil), "tls"), 10*time.Second)
	require.ErrorIs(t, err, remote.ErrUnreachable)
	assert.ErrorContains(t, err, "the TLS handshake failed")
}
