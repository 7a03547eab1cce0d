package durable_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
)

// The fleet test's limit: requests a second, and the burst, of all its
// processes together.
const (
	fleetRate  = 200.0
	fleetBurst = 10
)

func init() {
	children["fleet"] = func(args []string) error {
		if len(args) != 3 {
			return fmt.Errorf("fleet takes URL API WHO, got %q", args)
		}
		return runFleet(args[0], args[1], args[2])
	}
}

// runFleet is one process of the fleet test: a chain rate -> parallel, its
// rate stage on the limit "api" of the queue at url, that calls the API at
// api for every item, with more items than the limit lets through, until
// its stdin closes. Each request says who sent it, and when it started by
// the machine's clock. It prints "ready" once it has a share of the limit
// and its first request is answered.
func runFleet(url, api, who string) error {
	q, err := durable.Open[int](durable.Server{URL: url}, durable.Config{})
	if err != nil {
		return err
	}
	defer q.Close()
	lim, err := q.Limit("api", fleetRate, fleetBurst)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // the test closes stdin to end the run
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	pace, err := rate.Stage(rate.Config[int]{Rate: fleetRate, Burst: fleetBurst, Shared: lim})
	if err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 5 * time.Second}
	var once sync.Once
	call, err := parallel.Stage(parallel.Config{Limit: 64}, func(ctx context.Context, i int) (int, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, api+"?who="+who+"&start="+strconv.FormatInt(time.Now().UnixNano(), 10), nil)
		if err != nil {
			return 0, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		once.Do(func() { fmt.Println("ready") })
		return i, nil
	})
	if err != nil {
		return err
	}
	chain, err := compose.Start(rt, compose.Pipe2(pace, call), nil)
	if err != nil {
		return err
	}
	for i := 0; ctx.Err() == nil; i++ {
		if err := chain.Post(ctx, i); err != nil && ctx.Err() == nil {
			return err
		}
	}
	return chain.Stop(context.Background())
}

// request is one request the fleet test's API saw.
type request struct {
	who   string
	start time.Time // when the process started it, by the machine's clock
}

// counter is the fleet test's API: it answers every request at once and
// keeps who sent each and when it started.
type counter struct {
	mu   sync.Mutex
	seen []request
}

// ServeHTTP records the request.
func (c *counter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ns, err := strconv.ParseInt(r.URL.Query().Get("start"), 10, 64)
	if err != nil {
		http.Error(w, "start: "+err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.seen = append(c.seen, request{who: r.URL.Query().Get("who"), start: time.Unix(0, ns)})
	c.mu.Unlock()
}

// between returns the requests started from from to to, by start.
func (c *counter) between(from, to time.Time) []request {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []request
	for _, r := range c.seen {
		if !r.start.Before(from) && r.start.Before(to) {
			out = append(out, r)
		}
	}
	return out
}

// fleetChild is a process of the fleet test.
type fleetChild struct {
	who   string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan error
}

// startFleetChild starts the fleet process who on the queue at url,
// calling api, and waits up to 10 s for it to be ready.
func startFleetChild(t *testing.T, url, api, who string) *fleetChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), childEnv+"="+strings.Join([]string{"fleet", url, api, who}, " "))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &fleetChild{who: who, cmd: cmd, stdin: stdin, done: make(chan error, 1)}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		ready <- sc.Scan() && sc.Text() == "ready"
		for sc.Scan() {
		}
		c.done <- cmd.Wait()
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatalf("fleet process %s ended before it was ready", who)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("fleet process %s was not ready within 10s", who)
	}
	return c
}

// signal sends sig to the process.
func (c *fleetChild) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := c.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("%v to %s: %v", sig, c.who, err)
	}
}

// end closes the process's stdin and waits up to 10 s for it to end.
func (c *fleetChild) end(t *testing.T) {
	t.Helper()
	_ = c.stdin.Close()
	select {
	case err := <-c.done:
		if err != nil {
			t.Errorf("fleet process %s: %v", c.who, err)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("fleet process %s did not end within 10s of its stdin closing", c.who)
	}
}

// TestFleetSharesOneLimit runs processes that share one limit of 200
// requests a second with bursts of 10, on a queue this process serves on
// the loopback, each with more to send than the whole limit, against an
// API that records when each request started: a, b and c from the start;
// b is killed with SIGKILL at 3 s; c is stopped with SIGSTOP at 9 s and
// resumed at 11 s, when d joins; the run ends at 16 s.
//
// Over every window of 100 ms and of 1 s, the requests started number at
// most 10 + 200·t, whatever the faults. Where the processes have held
// their shares for a while, they use at least nine tenths of the limit:
// from 1 s to 3 s (a, b, c), from 7 s to 9 s (a and c, b's share freed by
// then) and from 14 s to 16 s (a, c, d).
//
// A request's start is stamped as the process sends it, a little after
// its token: a process stopped between the two sends late, by at most
// what it held then.
func TestFleetSharesOneLimit(t *testing.T) {
	skipUnderRace(t)
	q, err := durable.Open[int](durable.Embedded{Dir: t.TempDir(), Listen: "127.0.0.1:0"}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	api := &counter{}
	srv := httptest.NewServer(api)
	defer srv.Close()

	start := func(who string) *fleetChild { return startFleetChild(t, q.URL(), srv.URL, who) }
	a, b, c := start("a"), start("b"), start("c")
	var d *fleetChild
	t0 := time.Now()
	// What happens when, and where the processes use the whole limit.
	timeline := []struct {
		at       time.Duration
		fault    string
		do       func()
		busy     string        // the processes that use the limit from busyFrom to the next event
		busyFrom time.Duration // after at
	}{
		{0, "a, b and c start", func() {}, "a, b and c", time.Second},
		{3 * time.Second, "b is killed", func() { b.signal(t, syscall.SIGKILL) }, "a and c", 4 * time.Second},
		{9 * time.Second, "c is stopped", func() { c.signal(t, syscall.SIGSTOP) }, "", 0},
		{11 * time.Second, "c is resumed and d joins", func() { c.signal(t, syscall.SIGCONT); d = start("d") }, "a, c and d", 3 * time.Second},
		{16 * time.Second, "the end", func() {}, "", 0},
	}
	for _, e := range timeline {
		time.Sleep(time.Until(t0.Add(e.at)))
		e.do()
	}
	for _, p := range []*fleetChild{a, c, d} {
		p.end(t)
	}

	starts := api.starts()
	for i, e := range timeline[:len(timeline)-1] {
		from, to := t0.Add(e.at), t0.Add(timeline[i+1].at)
		for _, w := range []time.Duration{100 * time.Millisecond, time.Second} {
			bound := fleetBurst + int(fleetRate*w.Seconds())
			worst := windowMostFrom(starts, w, from, to)
			t.Logf("%s (%v to %v): at most %d requests started in a window of %v; the bound is %d", e.fault, e.at, timeline[i+1].at, worst, w, bound)
			if worst > bound {
				t.Errorf("%s: %d requests started in a window of %v; the bound is %d", e.fault, worst, w, bound)
			}
		}
		if e.busy == "" {
			continue
		}
		got := api.between(from.Add(e.busyFrom), to)
		want := 0.9 * fleetRate * to.Sub(from.Add(e.busyFrom)).Seconds()
		by := map[string]int{}
		for _, r := range got {
			by[r.who]++
		}
		t.Logf("%s, from %v to %v: %d requests (%v); nine tenths of the limit is %.0f", e.busy, e.at+e.busyFrom, timeline[i+1].at, len(got), by, want)
		if float64(len(got)) < want {
			t.Errorf("%s: %d requests from %v to %v; want at least %.0f", e.busy, len(got), e.at+e.busyFrom, timeline[i+1].at, want)
		}
	}
	if worst, bound := windowMost(starts, time.Second), fleetBurst+int(fleetRate); worst > bound {
		t.Errorf("%d requests started in a window of 1s; the bound is %d", worst, bound)
	}
	t.Logf("%d requests in all", len(starts))
}

// starts returns the instants the requests started at, in order.
func (c *counter) starts() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]time.Time, len(c.seen))
	for i, r := range c.seen {
		out[i] = r.start
	}
	slices.SortFunc(out, func(x, y time.Time) int { return x.Compare(y) })
	return out
}

// windowMostFrom returns the most instants of sorted that fall in a window
// of length w beginning from from to to.
func windowMostFrom(sorted []time.Time, w time.Duration, from, to time.Time) int {
	most := 0
	for i, at := range sorted {
		if at.Before(from) || !at.Before(to) {
			continue
		}
		end, _ := slices.BinarySearchFunc(sorted, at.Add(w), func(x, y time.Time) int { return x.Compare(y) })
		most = max(most, end-i)
	}
	return most
}
