//go:build !race

// The test in this file runs protoactor remote for real, which the race
// detector cannot (see package remote's process tests).

package durable_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/remote"
)

func init() {
	children["master"] = func(args []string) error { return runMaster(args[0], args[1], args[2], args[3]) }
	children["worker"] = func(args []string) error { return runWorker(args[0]) }
}

// masterStage names the remote stage of the master test.
const masterStage = "double"

// runMaster is a master process: it opens the queue in dir and runs, until
// the queue is empty, a chain whose remote stage, on a node at addr,
// doubles the items on worker processes, into batch files in sink named
// after run.
func runMaster(dir, addr, sink, run string) error {
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
	work, err := remote.Stage[durable.Item[int], durable.Item[int]](remote.Config[durable.Item[int]]{Node: node, Name: masterStage, Unordered: true})
	if err != nil {
		return err
	}
	batches, err := buffer.Stage(buffer.Config[durable.Item[int]]{Size: killBatch, MaxWait: 20 * time.Millisecond}, nil)
	if err != nil {
		return err
	}
	n := 0
	chain, err := compose.Start(rt, compose.Pipe2(work, batches), durable.Batches(q, func(b []durable.Item[int]) error {
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
	// Once both workers have joined this master, say so in a file: a
	// worker that never joined a master takes its death as final, so the
	// test kills a master only after that.
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			st, err := chain.Status(ctx)
			if err == nil {
				for _, a := range st.Agents {
					if rs, ok := a.Detail.(remote.Status); ok && len(rs.Workers) >= 2 {
						_ = os.WriteFile(filepath.Join(sink, "joined"+run), nil, 0o644)
						return
					}
				}
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	err = durable.Consume(ctx, q, chain, durable.WithUntilEmpty())
	close(stop)
	<-watched
	return err
}

// runWorker is a worker process of the master at addr: it doubles items,
// a little slowly, and rejoins a master that died until the stage ends.
func runWorker(addr string) error {
	fmt.Println("bound 0")
	return remote.Work(context.Background(), remote.WorkerConfig{Master: addr, Stage: masterStage, Slots: 16},
		durable.Map(func(ctx context.Context, v int) (int, error) {
			select {
			case <-time.After(200 * time.Microsecond):
			case <-ctx.Done():
				return 0, ctx.Err()
			}
			return 2 * v, nil
		}))
}

// TestKilledMasterLosesNothing runs a remote stage whose master consumes a
// durable queue of 20,000 items and whose two workers are processes of
// their own; it kills the master with SIGKILL at five random moments and
// starts it again on the same address and directory; the workers rejoin
// it. Every item reaches the sink, the queue ends empty, and the items
// written again after each crash are within what the master's chain may
// hold: its Bound, a batch in its sink, and one fetch.
func TestKilledMasterLosesNothing(t *testing.T) {
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
	addr := freeAddr(t)

	r := rand.New(rand.NewPCG(3, 5))
	var workers []*chainChild
	bound := 0
	for run := range kills + 1 {
		m := startChild(t, "master", dir, addr, sink, strconv.Itoa(run))
		b, err := m.bound()
		if err != nil {
			t.Fatal(err)
		}
		bound = b + killBatch + durable.DefaultFetch
		if run == 0 {
			for range 2 {
				w := startChild(t, "worker", addr)
				if _, err := w.bound(); err != nil {
					t.Fatal(err)
				}
				workers = append(workers, w)
			}
		}
		if run == kills {
			if err := m.wait(time.Minute); err != nil {
				t.Fatalf("the last master: %v", err)
			}
			break
		}
		target := 5 + r.IntN(21)
		deadline := time.Now().Add(time.Minute)
		// A worker that never joined a master takes its death as final, so
		// the first master is killed only once both workers have joined it;
		// later ones, once they wrote target batches, unless they finished.
		finished := false
		for !finished {
			_, err := os.Stat(filepath.Join(sink, "joined"+strconv.Itoa(run)))
			if (run > 0 || err == nil) && batches(t, sink, run) >= target {
				break
			}
			select {
			case err := <-m.done:
				if err != nil {
					t.Fatalf("master run %d: %v", run, err)
				}
				finished = true
				continue
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("master run %d wrote %d batches in a minute", run, batches(t, sink, run))
			}
			time.Sleep(time.Millisecond)
		}
		if finished {
			break
		}
		m.kill()
	}
	// Told the stage has finished, the workers end by themselves.
	for i, w := range workers {
		if err := w.wait(30 * time.Second); err != nil {
			t.Errorf("worker %d: %v", i, err)
		}
	}

	runs := readSink(t, sink, kills+1)
	// A master that finished before its kill leaves the runs after it
	// empty.
	count := map[string]int{}
	done := 0
	for _, keys := range runs {
		done += len(keys)
		for k := range keys {
			count[k]++
		}
	}
	for i := range items {
		if count["k"+strconv.Itoa(i)] == 0 {
			t.Errorf("item k%d never reached the sink", i)
		}
	}
	per := make([]string, len(runs))
	wrote := map[string]bool{}
	for i, keys := range runs {
		again := 0
		for k := range keys {
			if wrote[k] {
				again++
			}
		}
		for k := range keys {
			wrote[k] = true
		}
		per[i] = fmt.Sprintf("%d (%d again)", len(keys), again)
		if again > bound {
			t.Errorf("run %d wrote %d items that earlier runs had written; the bound is %d", i, again, bound)
		}
	}
	t.Logf("%d items, %d SIGKILLs of the master, %d written in all (%d again), by run: %s; bound %d (the chain's Bound, a batch, a fetch)",
		items, kills, done, done-len(count), strings.Join(per, ", "), bound)
	q, err = durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if n, err := q.Len(ctx); err != nil || n != 0 {
		t.Errorf("Len at the end = %d, %v; want 0", n, err)
	}
}

// freeAddr returns an address on the loopback with a port free now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
