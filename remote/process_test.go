//go:build !race

// The tests in this file run protoactor remote for real, with worker
// processes. They do not run under the race detector: protoactor's remote
// writes fields without a lock as it starts and shuts down (grpclog's
// logger in Start; the endpoint manager's state in Shutdown, while a lost
// connection is being handled), which the detector reports in any program
// that starts and stops it. The master's own bookkeeping is tested under
// -race by the evolve and property tests.

package remote_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/rate"
	"github.com/evolvekit/evolve/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func init() { asWorker = runWorker }

// job is what the test workers return for an item: its value doubled and
// the worker's label.
type job struct {
	V      int
	Worker string
}

// runWorker is a worker process's main: its settings come from the
// environment as master|stage|slots|tags|label|delay. A negative delay
// makes the work on some items never return, ignoring its context, and the
// worker's Grace short: hangs on item hangItem, wedges on every
// wedgeEvery-th. The items from slowBase on take slowTimes the delay.
func runWorker(spec string) int {
	if rest, ok := strings.CutPrefix(spec, moverSpec); ok {
		return runMover(rest)
	}
	if rest, ok := strings.CutPrefix(spec, largeSpec); ok {
		return runLarge(rest)
	}
	f := strings.Split(spec, "|")
	if len(f) != 6 {
		fmt.Fprintln(os.Stderr, "bad worker spec", spec)
		return 2
	}
	slots, _ := strconv.Atoi(f[2])
	delay, _ := time.ParseDuration(f[5])
	hang, wedge := delay == hangs, delay == wedges
	var grace time.Duration
	if hang || wedge {
		grace = hangGrace
	}
	var tags []string
	if f[3] != "" {
		tags = strings.Split(f[3], ",")
	}
	label := f[4]
	// SIGTERM asks the worker to leave gracefully.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	cfg := workerOptions(remote.WorkerConfig{Master: f[0], Stage: f[1], Slots: slots, Tags: tags})
	fmt.Println("ready")
	cfg.Grace = grace
	starts := os.Getenv(startsEnv)
	err := remote.Work(ctx, cfg,
		func(ctx context.Context, v int) (job, error) {
			if starts != "" {
				tellStart(ctx, starts)
			}
			if hang && v == hangItem || wedge && v%wedgeEvery == wedgeEvery-1 {
				select {}
			}
			if delay > 0 {
				d := delay
				if v >= slowBase {
					d *= slowTimes
				}
				select {
				case <-time.After(d):
				case <-ctx.Done():
					return job{}, ctx.Err()
				}
			}
			return job{V: 2 * v, Worker: label}, nil
		})
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	return 0
}

// nodeAndRuntime opens a node on the loopback and a runtime with opts,
// both shut down as t ends.
func nodeAndRuntime(t *testing.T, opts ...agent.Option) (*remote.Node, *agent.Runtime) {
	t.Helper()
	node, err := remote.Listen(remote.NodeConfig{})
	require.NoError(t, err)
	rt := agent.NewRuntime(opts...)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		assert.NoError(t, rt.Shutdown(ctx))
		assert.NoError(t, node.Close())
	})
	return node, rt
}

// proc is a worker process the test started.
type proc struct {
	cmd   *exec.Cmd
	label string
	done  chan error
	lines chan line // what it printed after "ready", when
}

// startWorker runs a worker process for the stage at addr, with env (such
// as workerOpts settings) added to its environment; t's cleanup kills it
// if it is still running.
func startWorker(t *testing.T, addr, stage string, slots int, tags, label string, delay time.Duration, env ...string) *proc {
	t.Helper()
	env = append(env, workerEnv+"="+strings.Join([]string{addr, stage, strconv.Itoa(slots), tags, label, delay.String()}, "|"))
	return startProc(t, label, env)
}

// startProc runs the test binary as a process labelled label, with env
// added to its environment, and waits until it says it is ready.
func startProc(t testing.TB, label string, env []string) *proc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	r := bufio.NewReader(out)
	first, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready\n", first)
	p := &proc{cmd: cmd, label: label, done: make(chan error, 1), lines: make(chan line, 1<<14)}
	go func() {
		p.drain(r)
		p.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Kill()
		<-p.done
	})
	return p
}

// signal sends the process sig.
func (p *proc) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(sig))
}

// wait waits for the process to end by itself, within d.
func (p *proc) wait(t *testing.T, d time.Duration) error {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		return err
	case <-time.After(d):
		t.Fatalf("worker %s did not end within %v", p.label, d)
		return nil
	}
}

// collector keeps what a master emits.
type collector struct {
	mu      sync.Mutex
	results []remote.Result[job]
	seen    map[uint64]int
	step    chan struct{} // ticks once per result
}

func newCollector() *collector {
	return &collector{seen: make(map[uint64]int), step: make(chan struct{}, 1<<16)}
}

func (c *collector) sink(r remote.Result[job]) {
	c.mu.Lock()
	c.results = append(c.results, r)
	c.seen[r.Seq]++
	c.mu.Unlock()
	c.step <- struct{}{}
}

// await waits for n more results, within d.
func (c *collector) await(t *testing.T, n int, d time.Duration) {
	t.Helper()
	deadline := time.After(d)
	for range n {
		select {
		case <-c.step:
		case <-deadline:
			t.Fatalf("results did not come within %v", d)
		}
	}
}

// byWorker counts the results by the label of the worker that made them.
func (c *collector) byWorker() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int)
	for _, r := range c.results {
		out[r.Value.Worker]++
	}
	return out
}

// checkOnce asserts that the n items came out once each, in input order,
// each doubled.
func (c *collector) checkOnce(t *testing.T, n int) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	require.Len(t, c.results, n)
	for i, r := range c.results {
		require.NoError(t, r.Err, "item %d", i)
		require.Equal(t, uint64(i), r.Seq, "results out of order")
		require.Equal(t, 2*i, r.Value.V)
	}
}

// master starts a node and a master on it for the test.
func master(t *testing.T, cfg remote.Config[int]) (*remote.Node, agent.Handle[int, remote.Status], *collector) {
	t.Helper()
	node, err := remote.Listen(remote.NodeConfig{})
	require.NoError(t, err)
	rt := agent.NewRuntime()
	cfg.Node = node
	c := newCollector()
	h, err := remote.New[int, job](rt, cfg, c.sink)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		assert.NoError(t, rt.Shutdown(ctx))
		assert.NoError(t, node.Close())
	})
	return node, h, c
}

// status returns the master's status.
func status(t *testing.T, h agent.Handle[int, remote.Status]) remote.Status {
	t.Helper()
	st, err := h.Status(context.Background())
	require.NoError(t, err)
	return st
}

// eventually waits, within d, until ok holds of the master's status.
func eventually(t *testing.T, h agent.Handle[int, remote.Status], d time.Duration, what string, ok func(remote.Status) bool) {
	t.Helper()
	require.Eventually(t, func() bool { return ok(status(t, h)) }, d, 5*time.Millisecond, what)
}

// post posts items from..to-1.
func post(t *testing.T, h agent.Handle[int, remote.Status], from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		require.NoError(t, h.Post(context.Background(), i))
	}
}

// finish closes the master and waits for it.
func finish(t *testing.T, h agent.Handle[int, remote.Status]) {
	t.Helper()
	h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, h.Wait(ctx), "status: %+v", status(t, h))
}

func TestKilledWorkerLosesNothing(t *testing.T) {
	const n = 3000
	node, h, c := master(t, remote.Config[int]{Name: "double"})
	var ws []*proc
	for _, label := range []string{"a", "b", "c"} {
		ws = append(ws, startWorker(t, node.Addr(), "double", 4, "", label, time.Millisecond))
	}
	eventually(t, h, 10*time.Second, "three workers register", func(s remote.Status) bool { return len(s.Workers) == 3 })
	done := make(chan struct{})
	go func() { defer close(done); post(t, h, 0, n) }()
	c.await(t, n/4, 20*time.Second)
	ws[0].signal(t, syscall.SIGKILL)
	killed := time.Now()
	eventually(t, h, 5*time.Second, "the master sees the worker gone", func(s remote.Status) bool { return len(s.Workers) == 2 })
	t.Logf("worker killed: the master gave it up and queued its items again after %v", time.Since(killed).Round(time.Millisecond))
	<-done
	finish(t, h)
	c.checkOnce(t, n)
	st := status(t, h)
	assert.Positive(t, st.Requeued, "the killed worker's items are requeued")
	assert.Zero(t, st.Failed)
	for _, w := range ws[1:] {
		assert.NoError(t, w.wait(t, 10*time.Second), "a worker ends cleanly once the stage has finished")
	}
	t.Logf("by worker: %v; requeued %d", c.byWorker(), st.Requeued)
}

func TestWorkerSeesTheMasterGone(t *testing.T) {
	node, err := remote.Listen(remote.NodeConfig{})
	require.NoError(t, err)
	rt := agent.NewRuntime()
	h, err := remote.New[int, job](rt, remote.Config[int]{Node: node}, nil)
	require.NoError(t, err)
	w := startWorker(t, node.Addr(), "remote", 1, "", "a", 0, opts("rejoin=500ms"))
	// The worker has joined once it has done an item.
	require.NoError(t, h.Post(context.Background(), 21))
	eventually(t, h, 10*time.Second, "the worker does an item", func(s remote.Status) bool { return s.Done == 1 })
	require.NoError(t, node.Close())
	var exit *exec.ExitError
	require.ErrorAs(t, w.wait(t, 10*time.Second), &exit, "the worker fails once its master is gone")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, rt.Shutdown(ctx))
}

func TestStoppedWorkerIsLeasedAroundAndItsLateResultsDropped(t *testing.T) {
	const n = 400
	// A heartbeat longer than the test, so that the lease, not the
	// silence, takes the stopped worker's items back.
	node, h, c := master(t, remote.Config[int]{Name: "lease", Lease: 300 * time.Millisecond, Heartbeat: time.Minute})
	stuck := startWorker(t, node.Addr(), "lease", 4, "", "stuck", 20*time.Millisecond)
	eventually(t, h, 10*time.Second, "the first worker registers", func(s remote.Status) bool { return len(s.Workers) == 1 })
	post(t, h, 0, 8)
	eventually(t, h, 10*time.Second, "the first worker holds items", func(s remote.Status) bool { return s.InFlight > 0 })
	stuck.signal(t, syscall.SIGSTOP)
	startWorker(t, node.Addr(), "lease", 4, "", "live", time.Millisecond)
	post(t, h, 8, n)
	c.await(t, n, 20*time.Second)
	st := status(t, h)
	assert.Positive(t, st.Requeued, "the stopped worker's leases expired")
	stuck.signal(t, syscall.SIGCONT)
	eventually(t, h, 10*time.Second, "the stopped worker's late results are dropped", func(s remote.Status) bool { return s.Duplicates > 0 })
	finish(t, h)
	c.checkOnce(t, n)
	t.Logf("by worker: %v; status %+v", c.byWorker(), status(t, h).Load)
}

func TestTaggedItemsWaitForATaggedWorker(t *testing.T) {
	const n = 200
	tag := func(v int) string {
		if v%2 == 0 {
			return "gpu"
		}
		return ""
	}
	node, h, c := master(t, remote.Config[int]{Name: "tags", Tag: tag})
	startWorker(t, node.Addr(), "tags", 2, "", "plain", time.Millisecond)
	gpu := startWorker(t, node.Addr(), "tags", 2, "gpu", "gpu1", 5*time.Millisecond)
	eventually(t, h, 10*time.Second, "both workers register", func(s remote.Status) bool { return len(s.Workers) == 2 })
	post(t, h, 0, 20)
	c.await(t, 4, 10*time.Second)
	gpu.signal(t, syscall.SIGKILL)
	done := make(chan struct{})
	go func() { defer close(done); post(t, h, 20, n) }()
	eventually(t, h, 10*time.Second, "the tagged items wait", func(s remote.Status) bool { return s.Waiting > 0 && len(s.Workers) == 1 })
	startWorker(t, node.Addr(), "tags", 2, "gpu", "gpu2", time.Millisecond)
	<-done
	finish(t, h)
	c.checkOnce(t, n)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.results {
		if r.Seq%2 == 0 {
			assert.Contains(t, []string{"gpu1", "gpu2"}, r.Value.Worker, "item %d needs the tag", r.Seq)
		}
	}
}

func TestJoiningWorkerGetsWork(t *testing.T) {
	const n = 600
	node, h, c := master(t, remote.Config[int]{Name: "join"})
	startWorker(t, node.Addr(), "join", 2, "", "first", 2*time.Millisecond)
	done := make(chan struct{})
	go func() { defer close(done); post(t, h, 0, n) }()
	c.await(t, 50, 10*time.Second)
	startWorker(t, node.Addr(), "join", 2, "", "second", 2*time.Millisecond)
	<-done
	finish(t, h)
	c.checkOnce(t, n)
	assert.Positive(t, c.byWorker()["second"], "the worker that joined mid-run did items")
}

func TestLeavingWorkerHandsBackWithoutFailing(t *testing.T) {
	const n = 300
	node, h, c := master(t, remote.Config[int]{Name: "leave", MaxAttempts: 1})
	leaver := startWorker(t, node.Addr(), "leave", 4, "", "leaver", 20*time.Millisecond)
	startWorker(t, node.Addr(), "leave", 4, "", "stayer", time.Millisecond)
	done := make(chan struct{})
	go func() { defer close(done); post(t, h, 0, n) }()
	c.await(t, 20, 10*time.Second)
	leaver.signal(t, syscall.SIGTERM)
	require.NoError(t, leaver.wait(t, 10*time.Second), "a worker asked to stop leaves cleanly")
	<-done
	finish(t, h)
	c.checkOnce(t, n)
	st := status(t, h)
	assert.Zero(t, st.Failed, "with one attempt allowed, nothing handed back counts as a failure")
}

func TestStageInAChain(t *testing.T) {
	const n = 1000
	node, rt := nodeAndRuntime(t)
	limit, err := rate.Stage(rate.Config[int]{Rate: 1e6, Burst: 100})
	require.NoError(t, err)
	double, err := remote.Stage[int, job](remote.Config[int]{Node: node, Name: "chain", Queue: 8})
	require.NoError(t, err)
	batches, err := buffer.Stage(buffer.Config[job]{Size: 100}, func(context.Context, []job) error { return nil })
	require.NoError(t, err)
	var mu sync.Mutex
	var got []int
	h, err := compose.Start(rt, compose.Pipe3(limit, double, batches), func(b []job) {
		mu.Lock()
		defer mu.Unlock()
		for _, j := range b {
			got = append(got, j.V)
		}
	})
	require.NoError(t, err)
	startWorker(t, node.Addr(), "chain", 4, "", "a", 0)
	startWorker(t, node.Addr(), "chain", 4, "", "b", 0)
	for i := range n {
		require.NoError(t, h.Post(context.Background(), i))
	}
	h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, h.Wait(ctx))
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, n)
	for i, v := range got {
		require.Equal(t, 2*i, v, "the chain keeps input order")
	}
}

func TestAStageStartsAfreshEachRun(t *testing.T) {
	node, rt := nodeAndRuntime(t)
	double, err := remote.Stage[int, job](remote.Config[int]{Node: node, Name: "again"})
	require.NoError(t, err)
	for run := range 2 {
		var got []int
		h, err := compose.Start(rt, double, func(j job) { got = append(got, j.V) })
		require.NoError(t, err)
		startWorker(t, node.Addr(), "again", 2, "", strconv.Itoa(run), 0)
		for i := range 5 {
			require.NoError(t, h.Post(context.Background(), i))
		}
		h.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		require.NoError(t, h.Wait(ctx), "run %d", run)
		cancel()
		assert.Equal(t, []int{0, 2, 4, 6, 8}, got, "run %d", run)
	}
}

func TestWorkerForAStageNobodyRuns(t *testing.T) {
	node, err := remote.Listen(remote.NodeConfig{})
	require.NoError(t, err)
	defer node.Close()
	start := time.Now()
	err = remote.Work(context.Background(), remote.WorkerConfig{Master: node.Addr(), Stage: "nobody", Connect: time.Second},
		func(_ context.Context, v int) (int, error) { return v, nil })
	require.ErrorIs(t, err, remote.ErrUnreachable)
	assert.Contains(t, err.Error(), `no stage named "nobody"`)
	took := time.Since(start)
	assert.GreaterOrEqual(t, took, time.Second, "it looked again until its Connect passed: the stage may start after its node listens")
	assert.Less(t, took, 3*time.Second)
}

// A worker that registers after the master's node listens and before its
// stage runs joins once the stage does.
func TestWorkerThatComesBeforeItsStageJoinsOnceItRuns(t *testing.T) {
	node, err := remote.Listen(remote.NodeConfig{})
	require.NoError(t, err)
	defer node.Close()
	ended := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		ended <- remote.Work(ctx, remote.WorkerConfig{Master: node.Addr(), Stage: "late", Slots: 2},
			func(_ context.Context, v int) (job, error) { return job{V: 2 * v}, nil })
	}()
	time.Sleep(300 * time.Millisecond) // the worker finds no stage, and looks again
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	c := newCollector()
	h, err := remote.New[int, job](rt, remote.Config[int]{Node: node, Name: "late"}, c.sink)
	require.NoError(t, err)
	post(t, h, 0, 10)
	c.await(t, 10, 10*time.Second)
	finish(t, h)
	c.checkOnce(t, 10)
	select {
	case err := <-ended:
		assert.NoError(t, err, "told the stage finished")
	case <-time.After(10 * time.Second):
		t.Fatal("the worker did not end")
	}
}
