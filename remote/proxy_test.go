//go:build !race

package remote_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"
)

// The helpers of live_test.go: a TCP proxy of the test's own, to cut the
// connections between master and worker; a master in a process of its own,
// to stop, kill and restart; and what the processes print, as it comes.

func init() { asMaster = runMaster }

// workerOptsEnv holds a test worker's further settings, as
// "rejoin=1s,listen=127.0.0.1:7071,advertise=127.0.0.1:7072,health=127.0.0.1:8081,endwedged=1".
const workerOptsEnv = "EVOLVE_REMOTE_TEST_WORKER_OPTS"

// workerOptions sets what workerOptsEnv asks of cfg, and sends the
// worker's logs to its standard output, where the test reads them.
func workerOptions(cfg remote.WorkerConfig) remote.WorkerConfig {
	cfg.Log = zerolog.New(os.Stdout).Level(zerolog.DebugLevel)
	for _, kv := range strings.Split(os.Getenv(workerOptsEnv), ",") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "rejoin":
			cfg.Rejoin, _ = time.ParseDuration(v)
		case "listen":
			cfg.Listen = v
		case "advertise":
			cfg.Advertise = v
		case "health":
			cfg.Health = v
		case "endwedged":
			cfg.EndWhenWedged = v == "1"
		}
	}
	return cfg
}

// opts returns the environment setting of a worker's further settings.
func opts(kvs ...string) string { return workerOptsEnv + "=" + strings.Join(kvs, ",") }

// line is a line a process printed, and when the test read it.
type line struct {
	text string
	at   time.Time
}

// drain passes on what the process prints until it ends.
func (p *proc) drain(r *bufio.Reader) {
	for {
		text, err := r.ReadString('\n')
		if text != "" {
			select {
			case p.lines <- line{text: strings.TrimSpace(text), at: time.Now()}:
			default: // nobody reads: drop it
			}
		}
		if err != nil {
			return
		}
	}
}

// await returns the first line, within d, that holds what.
func (p *proc) await(t *testing.T, what string, d time.Duration) line {
	t.Helper()
	deadline := time.After(d)
	var seen []string
	for {
		select {
		case l := <-p.lines:
			if strings.Contains(l.text, what) {
				return l
			}
			seen = append(seen, l.text)
		case <-deadline:
			t.Fatalf("%s did not print %q within %v; it printed %q", p.label, what, d, seen[max(0, len(seen)-30):])
			return line{}
		}
	}
}

// runMaster is the main of a master process: its settings come from the
// environment as addr|stage|n|base|heartbeat. It posts n items, base to
// base+n-1, prints each result as "R seq value worker" (or "F seq error"),
// and "done" once the stage has finished.
func runMaster(spec string) int {
	f := strings.Split(spec, "|")
	if len(f) != 5 {
		fmt.Fprintln(os.Stderr, "bad master spec", spec)
		return 2
	}
	n, _ := strconv.Atoi(f[2])
	base, _ := strconv.Atoi(f[3])
	heartbeat, _ := time.ParseDuration(f[4])
	node, err := remote.Listen(remote.NodeConfig{Addr: f[0]})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer node.Close()
	rt := agent.NewRuntime()
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	h, err := remote.New[int, job](rt, remote.Config[int]{Node: node, Name: f[1], Heartbeat: heartbeat}, func(r remote.Result[job]) {
		mu.Lock()
		defer mu.Unlock()
		if r.Err != nil {
			fmt.Fprintf(out, "F %d %v\n", r.Seq, r.Err)
		} else {
			fmt.Fprintf(out, "R %d %d %s\n", r.Seq, r.Value.V, r.Value.Worker)
		}
		out.Flush()
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("ready")
	for i := range n {
		if err := h.Post(context.Background(), base+i); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	h.Close()
	if err := h.Wait(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("done")
	return 0
}

// startMaster runs a master process at addr for stage, with n items from
// base, and the heartbeat given.
func startMaster(t *testing.T, label, addr, stage string, n, base int, heartbeat time.Duration) *proc {
	t.Helper()
	spec := strings.Join([]string{addr, stage, strconv.Itoa(n), strconv.Itoa(base), heartbeat.String()}, "|")
	return startProc(t, label, []string{masterEnv + "=" + spec})
}

// collect reads a master process's results from item next on until it
// prints "done", within d, and checks that each of its n items came out
// once, in input order, as its value (base + seq) doubled. It returns the
// results by worker, and when the first came.
func collect(t *testing.T, m *proc, next, n, base int, d time.Duration) (map[string]int, time.Time) {
	t.Helper()
	deadline := time.After(d)
	by := map[string]int{}
	var first time.Time
	for {
		select {
		case l := <-m.lines:
			switch {
			case l.text == "done":
				require.Equal(t, n, next, "every item came out")
				return by, first
			case strings.HasPrefix(l.text, "R "):
				var seq, v int
				var worker string
				_, err := fmt.Sscanf(l.text, "R %d %d %s", &seq, &v, &worker)
				require.NoError(t, err, l.text)
				require.Equal(t, next, seq, "results once each, in input order")
				require.Equal(t, 2*(base+seq), v, "item %d's result is of this run", seq)
				if first.IsZero() {
					first = l.at
				}
				next++
				by[worker]++
			case strings.HasPrefix(l.text, "F "):
				t.Fatalf("%s: an item failed: %s", m.label, l.text)
			}
		case <-deadline:
			t.Fatalf("%s: %d of %d results within %v", m.label, next, n, d)
		}
	}
}

// masterOn starts a master on node for the test, which closes node after.
func masterOn(t *testing.T, node *remote.Node, cfg remote.Config[int]) (agent.Handle[int, remote.Status], *collector) {
	t.Helper()
	rt := agent.NewRuntime()
	cfg.Node = node
	c := newCollector()
	h, err := remote.New[int, job](rt, cfg, c.sink)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, rt.Shutdown(ctx))
		require.NoError(t, node.Close())
	})
	return h, c
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// proxy passes the TCP connections it takes at its address on to target,
// until cut resets them. While partitioned, it passes nothing either way
// and closes nothing, as a network that drops every packet: what was sent
// is delivered once it heals, as TCP would retransmit it.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  map[net.Conn]bool
	near   map[net.Conn]net.Conn // the connections it took, to those it made
	gone   map[net.Conn]bool     // the far sides of half-open connections
	flow   chan struct{}         // closed while bytes flow
	wg     sync.WaitGroup
}

// newProxy starts a proxy to target on the loopback; t's cleanup stops it.
func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &proxy{ln: ln, target: target, conns: map[net.Conn]bool{}, near: map[net.Conn]net.Conn{}, gone: map[net.Conn]bool{}, flow: make(chan struct{})}
	close(p.flow)
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(p.stop)
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

// serve takes connections until the proxy stops.
func (p *proxy) serve() {
	defer p.wg.Done()
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		target := p.target
		p.mu.Unlock()
		out, err := net.Dial("tcp", target)
		if err != nil {
			in.Close()
			continue
		}
		p.mu.Lock()
		p.conns[in], p.conns[out] = true, true
		p.near[in] = out
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(in, out)
		go p.pipe(out, in)
	}
}

// pipe copies from one side to the other, holding what it read while
// the proxy is partitioned, and closes both once either ends.
func (p *proxy) pipe(from, to net.Conn) {
	defer p.wg.Done()
	_, _ = io.Copy(to, held{from, to, p})
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range []net.Conn{from, to} {
		if !p.gone[c] {
			c.Close()
			delete(p.conns, c)
		}
	}
	delete(p.near, from)
}

// halfOpen resets the connections the proxy took, and leaves those it made
// open and silent: their far ends never learn that their peer is gone, as
// when a reset is lost in a partition.
func (p *proxy) halfOpen() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for in, out := range p.near {
		p.gone[out] = true
		if tc, ok := in.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		in.Close()
		delete(p.conns, in)
	}
	n := len(p.near)
	clear(p.near)
	return n
}

// cut resets every connection the proxy holds, both ways, and returns how
// many it reset.
func (p *proxy) cut() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // close with a reset
		}
		c.Close()
	}
	n := len(p.conns)
	clear(p.conns)
	return n
}

// held reads from a connection, and returns what it read only while the
// proxy's bytes flow; what it held for a half-open connection is lost.
type held struct {
	r  io.Reader
	to net.Conn
	p  *proxy
}

func (h held) Read(b []byte) (int, error) {
	n, err := h.r.Read(b)
	h.p.mu.Lock()
	flow := h.p.flow
	h.p.mu.Unlock()
	<-flow
	h.p.mu.Lock()
	defer h.p.mu.Unlock()
	if h.p.gone[h.to] {
		return 0, io.EOF
	}
	return n, err
}

// partition stops the bytes, both ways, on every connection the proxy
// holds or takes, without closing any.
func (p *proxy) partition() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.flow:
		p.flow = make(chan struct{})
	default:
	}
}

// heal lets the bytes flow again, those held first.
func (p *proxy) heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.flow:
	default:
		close(p.flow)
	}
}

// stop closes the proxy and its connections, and waits for its goroutines.
func (p *proxy) stop() {
	p.heal()
	p.ln.Close()
	p.cut()
	p.mu.Lock()
	for c := range p.gone {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// alive asserts that the process has not ended.
func (p *proc) alive(t *testing.T) {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		t.Fatalf("%s ended: %v", p.label, err)
	default:
	}
}

// stopped stops p (SIGSTOP) and makes sure t's cleanup lets it go on.
func (p *proc) stopped(t *testing.T) {
	t.Helper()
	p.signal(t, syscall.SIGSTOP)
}
