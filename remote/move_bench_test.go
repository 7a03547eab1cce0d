//go:build !race

package remote_test

import (
	"context"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote"
	"github.com/rs/zerolog"
)

// BenchmarkMove measures, one item at a time (each posted once the last
// came out), what an item of two steps costs beside a plain one of the
// same size, on worker processes of the mover's work (runMover) on the
// loopback: plain, an item that needs tag "x" and is done in one step on
// the worker with it; moved, an item that needs tag "a", whose first
// step, on a worker with "a" only, moves it to "x", done by a second
// worker; local, the same on one worker that holds both tags, which goes
// on itself; alternate, plain items that go to the two workers in turn.
// One op is one item; it reports µs/item.
//
// A move costs one round trip more than the plain item: its four messages
// are two round trips, the second through the master, and nothing in
// between waits on a timer. But each message finds its process idle for
// a round trip or more, which on a shared 2-core virtual machine is
// slower to wake than one that answered a moment ago: alternate shows it
// for one step, 10 to 40% over plain, and moved costs about twice
// alternate. With `go test -run '^$' -bench BenchmarkMove -benchtime 300x
// -count 8 ./remote/`, medians over two sets of eight runs: plain 217 to
// 226, moved 528 to 670, local 264 to 293, alternate 256 to 299 µs/item
// (before the nodes' flow-control windows were fixed, in runs between
// those: 263, 729 to 861, 266 to 425, 333 to 360).
func BenchmarkMove(b *testing.B) {
	b.Run("plain", func(b *testing.B) { moveRun(b, 3, "a", "x") })
	b.Run("moved", func(b *testing.B) { moveRun(b, 0, "a", "x") })
	b.Run("local", func(b *testing.B) { moveRun(b, 0, "a,x") })
	b.Run("alternate", func(b *testing.B) { moveRun(b, 4, "a", "x") })
}

// moveRun runs b.N items that start at step first, one at a time, on
// workers with the tags tags. Step 4 needs tag "a" for an even N and "x"
// for an odd one.
func moveRun(b *testing.B, first int, tags ...string) {
	node, err := remote.Listen(remote.NodeConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer node.Close()
	rt := agent.NewRuntime(agent.WithLogger(zerolog.Nop()))
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = rt.Shutdown(ctx)
	}()
	results := make(chan remote.Result[trip], 1)
	tagOf := func(s trip) string {
		if s.Step == 0 || s.Step == 4 && s.N%2 == 0 {
			return "a"
		}
		return "x"
	}
	h, err := remote.New(rt, remote.Config[trip]{Node: node, Name: "bench", Tag: tagOf}, func(r remote.Result[trip]) { results <- r })
	if err != nil {
		b.Fatal(err)
	}
	for i, t := range tags {
		startMover(b, node.Addr(), "bench", t, "w"+string(rune('1'+i)), "")
	}
	deadline := time.Now().Add(20 * time.Second)
	for st, _ := h.Status(context.Background()); len(st.Workers) < len(tags); st, _ = h.Status(context.Background()) {
		if time.Now().After(deadline) {
			b.Fatal("the workers did not register")
		}
		time.Sleep(5 * time.Millisecond)
	}
	b.ResetTimer()
	for i := range b.N {
		if err := h.Post(context.Background(), trip{N: i, Step: first}); err != nil {
			b.Fatal(err)
		}
		if r := <-results; r.Err != nil {
			b.Fatal(r.Err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/item")
	h.Close()
	_ = h.Wait(context.Background())
}
