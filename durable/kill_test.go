package durable_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
)

// childEnv, set in a process's environment, makes the test binary run a
// child's part instead of the tests: "chain DIR SINK RUN".
const childEnv = "EVOLVE_DURABLE_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		os.Exit(runChild(strings.Fields(spec)))
	}
	os.Exit(m.Run())
}

// runChild is a child process's main.
func runChild(args []string) int {
	var err error
	if len(args) == 0 {
		err = fmt.Errorf("empty %s", childEnv)
	} else if f, ok := children[args[0]]; ok {
		err = f(args[1:])
	} else {
		err = fmt.Errorf("bad %s %q", childEnv, strings.Join(args, " "))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

// children are the parts a child process may play, by name; each takes
// the rest of its arguments.
var children = map[string]func(args []string) error{
	"chain": func(args []string) error {
		if len(args) != 3 {
			return fmt.Errorf("chain takes DIR SINK RUN, got %q", args)
		}
		return runChain(args[0], args[1], args[2])
	},
}

// The crash test's chain: rate -> parallel -> buffer, into a sink of
// batch files.
const (
	killRate  = 10_000 // items a second
	killLimit = 8
	killBatch = 100
)

// runChain opens the queue in dir and runs the crash test's chain on it
// until it is empty: each batch becomes a file in sink, named after the
// run and written whole (a temporary file renamed), one key a line. It
// prints the chain's Bound first.
func runChain(dir, sink, run string) error {
	ctx := context.Background()
	q, err := durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{})
	if err != nil {
		return err
	}
	defer q.Close()
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	limit, err := rate.Stage(rate.Config[durable.Item[int]]{Rate: killRate, Burst: killBatch})
	if err != nil {
		return err
	}
	// Each run notes every item it works on, one write each, so that what
	// a crash made it do again can be counted.
	worked, err := os.OpenFile(filepath.Join(sink, "run"+run+".worked"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer worked.Close()
	work, err := parallel.Stage(parallel.Config{Limit: killLimit}, durable.Map(func(_ context.Context, v int) (int, error) {
		if _, err := fmt.Fprintf(worked, "k%d\n", v); err != nil {
			return 0, err
		}
		return 2 * v, nil
	}))
	if err != nil {
		return err
	}
	batches, err := buffer.Stage(buffer.Config[durable.Item[int]]{Size: killBatch, MaxWait: 20 * time.Millisecond}, nil)
	if err != nil {
		return err
	}
	n := 0
	chain, err := compose.Start(rt, compose.Pipe3(limit, work, batches), durable.Batches(q, func(b []durable.Item[int]) error {
		n++
		return writeKeys(filepath.Join(sink, fmt.Sprintf("run%s-%06d", run, n)), b, true)
	}), compose.WithDeadLetters(q.DeadLetters))
	if err != nil {
		return err
	}
	st, err := chain.Status(ctx)
	if err != nil {
		return err
	}
	fmt.Println("bound", st.Bound)
	return durable.Consume(ctx, q, chain, durable.WithUntilEmpty())
}

// keyNumber returns the number in a key "k<n>".
func keyNumber(key string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(key, "k"))
	return n
}

// TestKilledChainLosesNothing adds 20,000 items to an embedded queue, runs
// a chain on it in a child process, kills the child with SIGKILL at five
// random moments, starting it again on the same directory each time, and
// lets the last run finish: every item reached the sink, the queue is
// empty, and the items done again after each crash are within what the
// chain may hold: its Bound, a batch in its sink, and one fetch.
func TestKilledChainLosesNothing(t *testing.T) {
	skipUnderRace(t)
	const items, kills = 20_000, 5
	dir, sink := t.TempDir(), t.TempDir()
	ctx := context.Background()
	q, err := durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	entries := keyed(items)
	if err := q.AddMany(ctx, entries); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}

	r := rand.New(rand.NewPCG(7, 11))
	bound := 0
	for run := range kills + 1 {
		c := startChain(t, dir, sink, run)
		b, err := c.bound()
		if err != nil {
			t.Fatal(err)
		}
		bound = b + killBatch + durable.DefaultFetch
		if run == kills {
			if err := c.wait(time.Minute); err != nil {
				t.Fatalf("the last run: %v", err)
			}
			break
		}
		// Kill it once it has written 5 to 25 batches of its own.
		target := 5 + r.IntN(21)
		deadline := time.Now().Add(time.Minute)
		for batches(t, sink, run) < target {
			if time.Now().After(deadline) {
				t.Fatalf("run %d wrote %d batches in a minute", run, batches(t, sink, run))
			}
			time.Sleep(time.Millisecond)
		}
		c.kill()
	}

	runs := readSink(t, sink, kills+1)
	count := map[string]int{}
	for _, keys := range runs {
		for k := range keys {
			count[k]++
		}
	}
	for i := range items {
		if count["k"+strconv.Itoa(i)] == 0 {
			t.Errorf("item k%d never reached the sink", i)
		}
	}
	if len(count) != items {
		t.Errorf("the sink has %d keys; want %d", len(count), items)
	}
	// The re-work after crash i: items run i+1 worked on that runs 0..i
	// had worked on already, and items it wrote to the sink that they had
	// written.
	worked := readWorked(t, sink, kills+1)
	workedBefore, wroteBefore := map[string]bool{}, map[string]bool{}
	var reworks []string
	for i := range kills {
		for k := range worked[i] {
			workedBefore[k] = true
		}
		for k := range runs[i] {
			wroteBefore[k] = true
		}
		again, rewritten := 0, 0
		for k := range worked[i+1] {
			if workedBefore[k] {
				again++
			}
		}
		for k := range runs[i+1] {
			if wroteBefore[k] {
				rewritten++
			}
		}
		reworks = append(reworks, fmt.Sprintf("%d (%d written again)", again, rewritten))
		if again > bound {
			t.Errorf("after crash %d, %d items were worked on again; the bound is %d", i+1, again, bound)
		}
	}
	done, work := 0, 0
	for i := range runs {
		done += len(runs[i])
		work += len(worked[i])
	}
	t.Logf("%d items, %d SIGKILLs, %d worked on and %d written in all; re-work after each crash: %s; bound %d (the chain's Bound, a batch, a fetch)",
		items, kills, work, done, strings.Join(reworks, ", "), bound)

	q, err = durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if n, err := q.Len(ctx); err != nil || n != 0 {
		t.Errorf("Len at the end = %d, %v; want 0", n, err)
	}
	if n, err := q.DeadLen(ctx); err != nil || n != 0 {
		t.Errorf("DeadLen at the end = %d, %v; want 0", n, err)
	}
}

// chainChild is a child process running the crash test's chain.
type chainChild struct {
	cmd  *exec.Cmd
	out  *bufio.Scanner
	done chan error
}

// startChain starts run number run of the chain in a child process.
func startChain(t *testing.T, dir, sink string, run int) *chainChild {
	t.Helper()
	return startChild(t, "chain", dir, sink, strconv.Itoa(run))
}

// startChild starts a child process playing part with args. It prints a
// line "bound N" once it runs, which bound reads.
func startChild(t *testing.T, part string, args ...string) *chainChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(append([]string{part}, args...), " "))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &chainChild{cmd: cmd, out: bufio.NewScanner(out), done: make(chan error, 1)}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return c
}

// bound reads the chain's Bound the child prints as it starts.
func (c *chainChild) bound() (int, error) {
	if !c.out.Scan() {
		return 0, fmt.Errorf("the child said nothing: %v", c.cmd.Wait())
	}
	f := strings.Fields(c.out.Text())
	if len(f) != 2 || f[0] != "bound" {
		return 0, fmt.Errorf("the child said %q", c.out.Text())
	}
	go func() {
		for c.out.Scan() {
		}
		c.done <- c.cmd.Wait()
	}()
	return strconv.Atoi(f[1])
}

// wait waits at most d for the child to end, and returns its error.
func (c *chainChild) wait(d time.Duration) error {
	select {
	case err := <-c.done:
		return err
	case <-time.After(d):
		_ = c.cmd.Process.Kill()
		return fmt.Errorf("the child did not end within %v", d)
	}
}

// kill kills the child with SIGKILL and waits for it.
func (c *chainChild) kill() {
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.done
}

// batches counts the batch files run has written to sink.
func batches(t *testing.T, sink string, run int) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(sink, fmt.Sprintf("run%d-*.keys", run)))
	if err != nil {
		t.Fatal(err)
	}
	return len(m)
}

// readSink returns the keys each run wrote to sink, checking that no
// batch file holds a key twice.
func readSink(t *testing.T, sink string, runs int) []map[string]bool {
	t.Helper()
	out := make([]map[string]bool, runs)
	for run := range runs {
		out[run] = map[string]bool{}
		files, err := filepath.Glob(filepath.Join(sink, fmt.Sprintf("run%d-*.keys", run)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range strings.Fields(string(data)) {
				if out[run][k] {
					t.Errorf("run %d wrote key %s twice", run, k)
				}
				out[run][k] = true
			}
		}
	}
	return out
}

// readWorked returns the keys each run noted it worked on.
func readWorked(t *testing.T, sink string, runs int) []map[string]bool {
	t.Helper()
	out := make([]map[string]bool, runs)
	for run := range runs {
		out[run] = map[string]bool{}
		data, err := os.ReadFile(filepath.Join(sink, fmt.Sprintf("run%d.worked", run)))
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range strings.Fields(string(data)) {
			out[run][k] = true
		}
	}
	return out
}

// writeKeys writes the keys of batch, a line each, to name+".keys", whole
// or not at all (a temporary file, renamed); with doubled, it first checks
// that each value is its key's number doubled.
func writeKeys(name string, batch []durable.Item[int], doubled bool) error {
	var sb strings.Builder
	for _, it := range batch {
		if doubled && it.Value != 2*keyNumber(it.Key) {
			return fmt.Errorf("item %s came back as %d", it.Key, it.Value)
		}
		sb.WriteString(it.Key)
		sb.WriteByte('\n')
	}
	if err := os.WriteFile(name+".tmp", []byte(sb.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(name+".tmp", name+".keys")
}
