package durable_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/rate"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestClusterKeepsTheQueueThroughALeaderLoss opens a queue with three
// replicas on a cluster of three NATS servers, and runs a chain on 2,000
// items until it is empty. A quarter of the way the server that leads
// both the queue's stream and its consumer shuts down, so that the
// cluster must elect new leaders while the chain runs. The streams and
// the consumer have three replicas; every item reaches the sink; Consume
// returns nil before its deadline, and the queue ends empty.
func TestClusterKeepsTheQueueThroughALeaderLoss(t *testing.T) {
	skipUnderRace(t)
	runThroughFault(t, func(_ context.Context, c *cluster, leader int, _ func()) {
		c.shutdown(leader)
	})
}

// TestClusterQueueWaitsOutALostQuorum runs the chain of
// TestClusterKeepsTheQueueThroughALeaderLoss, but a quarter of the way
// two servers of the three shut down, the leader among them: the queue
// has no quorum, and answers nothing, until one of them starts again two
// seconds later. Consume waits it out: every item reaches the sink, and
// the queue ends empty.
func TestClusterQueueWaitsOutALostQuorum(t *testing.T) {
	skipUnderRace(t)
	runThroughFault(t, func(ctx context.Context, c *cluster, leader int, resume func()) {
		other := (leader + 1) % len(c.servers)
		c.shutdown(leader)
		c.shutdown(other)
		// The sink goes on meanwhile: what it acknowledges is lost, and
		// what Consume asks of the queue fails.
		resume()
		select {
		case <-time.After(2 * time.Second):
		case <-ctx.Done():
			return
		}
		c.restart(other)
	})
}

// TestReplicasNeedServersToKeepThem: Replicas 3 at a server that is not
// part of a cluster, and Replicas 5 at a cluster of three, are refused
// with an ErrConfig naming the replicas and saying why.
func TestReplicasNeedServersToKeepThem(t *testing.T) {
	srv := startServer(t, server.Options{})
	q, err := durable.Open[int](durable.Server{URL: srv.ClientURL(), Replicas: 3}, durable.Config{})
	if err == nil {
		q.Close()
	}
	if !errors.Is(err, durable.ErrConfig) || !strings.Contains(err.Error(), "replicas 3") || !strings.Contains(err.Error(), "not part of a cluster") {
		t.Errorf("Open with Replicas 3 at a single server = %v; want an ErrConfig naming the replicas, saying the server is not part of a cluster", err)
	}
	if testing.Short() {
		return
	}
	c := startCluster(t, 3)
	q, err = durable.Open[int](durable.Server{URL: c.url, Replicas: 5}, durable.Config{})
	if err == nil {
		q.Close()
	}
	if !errors.Is(err, durable.ErrConfig) || !strings.Contains(err.Error(), "replicas 5") || !strings.Contains(err.Error(), "fewer than 5 servers") {
		t.Errorf("Open with Replicas 5 at a cluster of 3 = %v; want an ErrConfig naming the replicas, saying the cluster has fewer servers", err)
	}
}

// runThroughFault opens a queue with three replicas on a cluster of
// three servers, checks that its streams and its consumer have them, and
// runs a chain on 2,000 items until the queue is empty. A quarter of the
// way the sink waits while fault runs, given the index of the server that
// leads both the queue's stream and its consumer, until it returns or
// calls resume. Every item must reach the sink, Consume return nil
// before its deadline, and the queue end empty.
func runThroughFault(t *testing.T, fault func(ctx context.Context, c *cluster, leader int, resume func())) {
	if testing.Short() {
		t.Skip("starts a cluster of three servers")
	}
	begun := time.Now()
	cl := startCluster(t, 3)
	t.Logf("the cluster was ready in %v", time.Since(begun).Round(time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	const name = "cluster"
	q, err := durable.Open[int](durable.Server{URL: cl.url, Replicas: 3}, durable.Config{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()

	js := jetStream(t, cl.url, nats.MaxReconnects(-1))
	var leader string // of the queue's stream
	for _, s := range []string{name, name + "_dead"} {
		info, err := streamInfo(ctx, js, s)
		if err != nil {
			t.Fatal(err)
		}
		if info.Config.Replicas != 3 || info.Cluster == nil || info.Cluster.Leader == "" || len(info.Cluster.Replicas) != 2 {
			t.Fatalf("stream %s: %d replicas configured, cluster %+v; want 3: a leader and 2 others", s, info.Config.Replicas, info.Cluster)
		}
		if s == name {
			leader = info.Cluster.Leader
		}
	}
	c, err := js.Consumer(ctx, name, "chain")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := c.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ci.Config.Replicas != 3 || ci.Cluster == nil || len(ci.Cluster.Replicas) != 2 {
		t.Fatalf("consumer chain: %d replicas configured, cluster %+v; want 3: a leader and 2 others", ci.Config.Replicas, ci.Cluster)
	}
	// The consumer's leader moves to the stream's, so that the server
	// shut down leads both: fetches and acknowledgements fail too, until
	// the consumer has a new leader.
	if err := leadConsumer(ctx, js.Conn(), c, name, leader); err != nil {
		t.Fatal(err)
	}
	lead := -1
	for i, s := range cl.servers {
		if s.Name() == leader {
			lead = i
		}
	}
	if lead < 0 {
		t.Fatalf("the stream's leader %q is none of the cluster's servers", leader)
	}

	const n = 2000
	fill(ctx, t, q, n)

	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	pass, err := rate.Stage(rate.Config[durable.Item[int]]{Rate: 1e6, Burst: 1000})
	if err != nil {
		t.Fatal(err)
	}
	quarter, down := make(chan struct{}), make(chan struct{})
	var once sync.Once
	resume := func() { once.Do(func() { close(down) }) }
	var mu sync.Mutex
	seen := map[string]int{}
	chain, err := compose.Start(rt, pass, durable.Sink(q, func(it durable.Item[int]) error {
		mu.Lock()
		seen[it.Key]++
		stop := seen[it.Key] == 1 && len(seen) == n/4
		mu.Unlock()
		if stop {
			close(quarter)
			select {
			case <-down:
			case <-ctx.Done():
			}
		}
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	var took time.Duration // by the fault
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer resume()
		select {
		case <-quarter:
		case <-ctx.Done():
			return
		}
		start := time.Now()
		fault(ctx, cl, lead, resume)
		took = time.Since(start)
	}()
	start := time.Now()
	err = durable.Consume(ctx, q, chain, durable.WithUntilEmpty())
	wg.Wait()
	if err != nil {
		t.Fatalf("Consume = %v; want nil", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("Consume ran until its deadline: %v", ctx.Err())
	}
	t.Logf("the run took %v, the fault %v", time.Since(start).Round(time.Millisecond), took.Round(time.Millisecond))
	mu.Lock()
	defer mu.Unlock()
	again := 0
	for i := range n {
		switch c := seen[fmt.Sprint("k", i)]; {
		case c == 0:
			t.Errorf("item k%d never reached the sink", i)
		case c > 1:
			again += c - 1
		}
	}
	t.Logf("%d items reached the sink again", again)
	// Every acknowledgement was confirmed, by the consumer's leader; the
	// stream's replicas drop what was acknowledged a moment later, so
	// Len may still count the last few items for that moment.
	var got int
	for start := time.Now(); time.Since(start) < time.Second; time.Sleep(10 * time.Millisecond) {
		ask, cancelAsk := context.WithTimeout(ctx, askTimeout)
		got, err = q.Len(ask)
		cancelAsk()
		if err == nil && got == 0 {
			break
		}
	}
	if err != nil || got != 0 {
		t.Errorf("Len a second after the run = %d, %v; want 0", got, err)
	}
}

// streamInfo returns what the servers say of stream.
func streamInfo(ctx context.Context, js jetstream.JetStream, stream string) (*jetstream.StreamInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, askTimeout)
	defer cancel()
	st, err := js.Stream(ctx, stream)
	if err != nil {
		return nil, err
	}
	return st.Info(ctx)
}

// askTimeout bounds each request of the tests to the servers: one a
// cluster loses as it changes leaders would wait as long as its context.
const askTimeout = 5 * time.Second

// leadConsumer makes the server named leader the leader of consumer c of
// stream, if it is not already, and waits until it is.
func leadConsumer(ctx context.Context, nc *nats.Conn, c jetstream.Consumer, stream, leader string) error {
	req, err := json.Marshal(map[string]any{"placement": map[string]string{"preferred": leader}})
	if err != nil {
		return err
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		ask, cancel := context.WithTimeout(ctx, askTimeout)
		info, err := c.Info(ask)
		cancel()
		if err == nil && info.Cluster != nil && info.Cluster.Leader == leader {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the consumer's leader did not move to %s: %+v, %v", leader, info, err)
		}
		if err == nil && info.Cluster != nil && info.Cluster.Leader != "" {
			subject := fmt.Sprintf("$JS.API.CONSUMER.LEADER.STEPDOWN.%s.%s", stream, info.Config.Durable)
			// A request lost as the leader changes is made again.
			_, _ = nc.Request(subject, req, askTimeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// cluster is a cluster of NATS servers with JetStream, in this process.
type cluster struct {
	t       *testing.T
	servers []*server.Server
	opts    []*server.Options // each server's, to start it again
	url     string            // of every server
}

// startCluster starts n NATS servers with JetStream on the loopback, in
// this process, routed to one another as one cluster, and waits until
// JetStream is ready on all of them. The servers shut down when the test
// ends. The cluster's ports are picked free beforehand: if another process
// takes one meanwhile, it starts again on others.
func startCluster(t *testing.T, n int) *cluster {
	t.Helper()
	for range 3 {
		c, err := tryCluster(t, n)
		if err == nil {
			return c
		}
		t.Log(err)
	}
	t.Fatal("no cluster started")
	return nil
}

// tryCluster starts a cluster of n servers, as startCluster does, on
// cluster ports that were free a moment ago.
func tryCluster(t *testing.T, n int) (*cluster, error) {
	ports := freePorts(t, n)
	routes := make([]string, n)
	for i, p := range ports {
		routes[i] = fmt.Sprintf("nats-route://127.0.0.1:%d", p)
	}
	c := &cluster{t: t, servers: make([]*server.Server, n), opts: make([]*server.Options, n)}
	urls := make([]string, n)
	for i := range c.servers {
		others := append(append([]string(nil), routes[:i]...), routes[i+1:]...)
		c.opts[i] = &server.Options{
			ServerName: fmt.Sprint("s", i+1),
			Host:       "127.0.0.1",
			Port:       -1,
			JetStream:  true,
			StoreDir:   t.TempDir(),
			Cluster:    server.ClusterOpts{Name: "evolve-test", Host: "127.0.0.1", Port: ports[i]},
			Routes:     server.RoutesFromStr(strings.Join(others, ",")),
			NoLog:      true,
			NoSigs:     true,
		}
		if err := c.start(i); err != nil {
			for _, s := range c.servers[:i] {
				s.Shutdown()
			}
			return nil, err
		}
		urls[i] = c.servers[i].ClientURL()
		// Started again, it listens for clients where it did.
		c.opts[i].Port = c.servers[i].Addr().(*net.TCPAddr).Port
	}
	c.url = strings.Join(urls, ",")
	c.waitReady()
	return c, nil
}

// start starts server i of c, with its options, and waits until it
// accepts connections.
func (c *cluster) start(i int) error {
	opts := *c.opts[i]
	s, err := server.NewServer(&opts)
	if err != nil {
		return err
	}
	log := &fatalLog{}
	s.SetLogger(log, false, false)
	s.Start()
	c.t.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	deadline := time.Now().Add(10 * time.Second)
	for !s.ReadyForConnections(50 * time.Millisecond) {
		if log.fatal.Load() || time.Now().After(deadline) {
			s.Shutdown()
			return fmt.Errorf("server %s did not start (cluster port %d)", opts.ServerName, opts.Cluster.Port)
		}
	}
	c.servers[i] = s
	return nil
}

// shutdown shuts server i of c down.
func (c *cluster) shutdown(i int) {
	c.servers[i].Shutdown()
	c.servers[i].WaitForShutdown()
}

// restart starts server i of c again, with the store it had.
func (c *cluster) restart(i int) {
	if err := c.start(i); err != nil {
		c.t.Error(err)
	}
}

// waitReady waits until one of c's servers leads JetStream's meta group
// and knows all of them as peers, and every one is current, for at most
// 20 s.
func (c *cluster) waitReady() {
	deadline := time.Now().Add(20 * time.Second)
	for !clusterReady(c.servers) {
		if time.Now().After(deadline) {
			c.t.Fatal("the cluster was not ready within 20s: no JetStream leader with every server current")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// clusterReady reports whether one of servers leads JetStream's meta
// group and knows all of them as peers, and every one is current.
func clusterReady(servers []*server.Server) bool {
	var leader *server.Server
	for _, s := range servers {
		if s.JetStreamIsLeader() {
			leader = s
		}
	}
	if leader == nil || len(leader.JetStreamClusterPeers()) != len(servers) {
		return false
	}
	for _, s := range servers {
		if !s.JetStreamIsCurrent() {
			return false
		}
	}
	return true
}

// freePorts returns n ports that were free on the loopback a moment ago.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports
}

// fatalLog notes whether a server logged a fatal error, such as a port it
// cannot listen on, and drops everything else.
type fatalLog struct{ fatal atomic.Bool }

func (l *fatalLog) Noticef(string, ...any) {}
func (l *fatalLog) Warnf(string, ...any)   {}
func (l *fatalLog) Fatalf(string, ...any)  { l.fatal.Store(true) }
func (l *fatalLog) Errorf(string, ...any)  {}
func (l *fatalLog) Debugf(string, ...any)  {}
func (l *fatalLog) Tracef(string, ...any)  {}
