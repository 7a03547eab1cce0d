//go:build !race

// The test in this file runs protoactor remote for real, which the race
// detector cannot (see package remote's process tests).

package durable_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/remote"
)

func init() {
	children["movemaster"] = func(args []string) error { return runMoveMaster(args[0], args[1], args[2]) }
	children["moveworker"] = func(args []string) error { return runMoveWorker(args[0], args[1], args[2]) }
}

// moveStage names the remote stage of the moves test.
const moveStage = "steps"

// runMoveMaster is a master process whose remote stage, on a node at
// addr, moves the items of the queue in dir from workers of tag "a" to
// workers of tag "b", recording each move in the queue, and writes to
// sink what reaches its end: a file "moved" once it recorded a move, and
// one line per item, its key, value and moves, in "out".
func runMoveMaster(dir, addr, sink string) error {
	ctx := context.Background()
	q, err := durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{})
	if err != nil {
		return err
	}
	defer q.Close()
	node, err := remote.Listen(remote.NodeConfig{Addr: addr})
	if err != nil {
		return err
	}
	defer node.Close()
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	work, err := remote.Stage[durable.Item[int], durable.Item[int]](remote.Config[durable.Item[int]]{Node: node, Name: moveStage,
		Tag: func(it durable.Item[int]) string { return max(it.Tag, "a") },
		OnMove: func(next durable.Item[int], tag string, hops int) error {
			err := q.Moved(next, tag, hops)
			if err == nil {
				err = os.WriteFile(filepath.Join(sink, "moved"), nil, 0o644)
			}
			return err
		}})
	if err != nil {
		return err
	}
	chain, err := compose.Start(rt, work, durable.Sink(q, func(it durable.Item[int]) error {
		return appendLine(filepath.Join(sink, "out"), fmt.Sprintf("%s %d %d", it.Key, it.Value, it.Moves))
	}))
	if err != nil {
		return err
	}
	fmt.Println("bound 0")
	return durable.Consume(ctx, q, chain, durable.WithUntilEmpty())
}

// runMoveWorker is a worker of tag of the master at addr. Its first step,
// on a worker of tag "a", writes "step1" to the file log and moves the
// item to tag "b" with its value times ten; the second, on a worker of
// tag "b", writes "step2", then waits for a file "release" beside log,
// and adds one.
func runMoveWorker(addr, tag, log string) error {
	fmt.Println("bound 0")
	return remote.Work(context.Background(), remote.WorkerConfig{Master: addr, Stage: moveStage, Slots: 2, Tags: []string{tag}},
		durable.Map(func(ctx context.Context, v int) (int, error) {
			if v < 10 {
				if err := appendLine(log, "step1"); err != nil {
					return 0, err
				}
				return 0, remote.Move("b", v*10)
			}
			if err := appendLine(log, "step2"); err != nil {
				return 0, err
			}
			for {
				if _, err := os.Stat(filepath.Join(filepath.Dir(log), "release")); err == nil {
					return v + 1, nil
				}
				select {
				case <-ctx.Done():
					return 0, ctx.Err()
				case <-time.After(5 * time.Millisecond):
				}
			}
		}))
}

// appendLine appends line to the file name.
func appendLine(name, line string) error {
	f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line + "\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// TestKilledMasterResumesAMovedItem adds one item to a durable queue, and
// runs a master whose item moves from a worker of tag "a" to one of tag
// "b"; once the master recorded the move and the second step started, it
// kills the master with SIGKILL, lets the second step finish, and starts
// the master again. The item reaches the sink once, from the moved state,
// its move counted; the first step ran once; the queue ends empty.
func TestKilledMasterResumesAMovedItem(t *testing.T) {
	dir, sink, log, addr, m, workers := moveUnderway(t)
	m.kill()
	if out := readFile(t, filepath.Join(sink, "out")); out != "" {
		t.Fatalf("the sink had %q before the master was killed", out)
	}
	if err := os.WriteFile(filepath.Join(sink, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	m = startChild(t, "movemaster", dir, addr, sink)
	if _, err := m.bound(); err != nil {
		t.Fatal(err)
	}
	if err := m.wait(time.Minute); err != nil {
		t.Fatalf("the restarted master: %v", err)
	}
	// The worker of tag "b" rejoined the restarted master to finish the
	// item, and ends with its stage; the one of tag "a" may not have
	// rejoined before the stage finished, and keeps trying for its
	// Rejoin (a minute): the test's cleanup kills it.
	if err := workers[1].wait(30 * time.Second); err != nil {
		t.Errorf("the worker of tag b: %v", err)
	}
	if got := strings.Count(readFile(t, log), "step1"); got != 1 {
		t.Errorf("the first step ran %d times; want once (steps: %q)", got, readFile(t, log))
	}
	if got, want := readFile(t, filepath.Join(sink, "out")), "job 71 1\n"; got != want {
		t.Errorf("the sink has %q; want %q: the moved state, once, one move counted", got, want)
	}
	ctx := context.Background()
	q, err := durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if n, err := q.Len(ctx); err != nil || n != 0 {
		t.Errorf("Len at the end = %d, %v; want 0", n, err)
	}
}

// exists reports whether the file name exists.
func exists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// readFile returns the text of the file name, "" if there is none.
func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// TestKilledWorkerAfterAMoveUnderADurableQueue adds one item to a durable
// queue and runs a master whose item moves from a worker of tag "a" to
// one of tag "b"; once the move is recorded and the second step started,
// it kills that worker with SIGKILL and starts another of tag "b". The
// item goes on there from its moved state: the first step ran once, the
// item reaches the sink once with the moved state's value, and the queue
// ends empty, its state purged.
func TestKilledWorkerAfterAMoveUnderADurableQueue(t *testing.T) {
	dir, sink, log, addr, m, workers := moveUnderway(t)
	workers[1].kill()
	w := startChild(t, "moveworker", addr, "b", log)
	if _, err := w.bound(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sink, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.wait(2 * time.Minute); err != nil {
		t.Fatalf("the master: %v", err)
	}
	for i, w := range []*chainChild{workers[0], w} {
		if err := w.wait(30 * time.Second); err != nil {
			t.Errorf("worker %d: %v", i, err)
		}
	}
	steps := readFile(t, log)
	if got := strings.Count(steps, "step1"); got != 1 {
		t.Errorf("the first step ran %d times; want once (steps: %q)", got, steps)
	}
	if got := strings.Count(steps, "step2"); got != 2 {
		t.Errorf("the second step ran %d times; want twice, on the worker killed and on the next (steps: %q)", got, steps)
	}
	if got, want := readFile(t, filepath.Join(sink, "out")), "job 71 0\n"; got != want {
		t.Errorf("the sink has %q; want %q: the moved state, once", got, want)
	}
	ctx := context.Background()
	q, err := durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if n, err := q.Len(ctx); err != nil || n != 0 {
		t.Errorf("Len at the end = %d, %v; want 0", n, err)
	}
	if states, err := durable.MovedStates(q); err != nil || len(states) != 0 {
		t.Errorf("the states at the end are %v, %v; want none", states, err)
	}
}

// moveUnderway adds one item to a durable queue in a directory of its
// own, starts a master of it (movemaster) and a worker of tag "a" and one
// of tag "b" (moveworker), and waits, a minute at most, until the master
// recorded the item's move and its second step started. It returns the
// queue's directory, the sink's, the log of the steps, the master's
// address, the master and the workers.
func moveUnderway(t *testing.T) (dir, sink, log, addr string, m *chainChild, workers []*chainChild) {
	t.Helper()
	dir, sink = t.TempDir(), t.TempDir()
	log = filepath.Join(sink, "steps")
	ctx := context.Background()
	q, err := durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Add(ctx, "job", 7); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	addr = freeAddr(t)
	m = startChild(t, "movemaster", dir, addr, sink)
	if _, err := m.bound(); err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{"a", "b"} {
		w := startChild(t, "moveworker", addr, tag, log)
		if _, err := w.bound(); err != nil {
			t.Fatal(err)
		}
		workers = append(workers, w)
	}
	deadline := time.Now().Add(time.Minute)
	for !(exists(filepath.Join(sink, "moved")) && strings.Contains(readFile(t, log), "step2")) {
		if time.Now().After(deadline) {
			t.Fatalf("no move recorded and second step started within a minute; steps: %q", readFile(t, log))
		}
		time.Sleep(5 * time.Millisecond)
	}
	return dir, sink, log, addr, m, workers
}
