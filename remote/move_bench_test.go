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
// One op is one item; it reports µs/item, from the item's post to its
// result.
//
// A move costs one round trip more than the plain item: its four messages
// are two round trips, the second through the master, and nothing in
// between waits on a timer. But how long a message takes depends on how
// long the process it finds has been idle: on a virtual machine, a core
// idle for more than a couple of hundred microseconds is slower to wake
// than one that answered a moment ago, and posted back to back, a plain
// item finds its worker warm where each step of a moved one finds its
// worker idle for a round trip or more (alternate shows it for one step).
// So the idle- variants wait a millisecond before each item, outside
// what they measure, and every process is idle alike at each of their
// items: there, a move costs the plain item's round trip or less (see
// docs/moves.md).
func BenchmarkMove(b *testing.B) {
	for _, gap := range []time.Duration{0, time.Millisecond} {
		pre := ""
		if gap > 0 {
			pre = "idle-"
		}
		b.Run(pre+"plain", func(b *testing.B) { moveRun(b, gap, 3, "a", "x") })
		b.Run(pre+"moved", func(b *testing.B) { moveRun(b, gap, 0, "a", "x") })
		b.Run(pre+"local", func(b *testing.B) { moveRun(b, gap, 0, "a,x") })
		b.Run(pre+"alternate", func(b *testing.B) { moveRun(b, gap, 4, "a", "x") })
	}
}

// moveRun runs b.N items that start at step first, one at a time, each
// gap after the last came out, on workers with the tags tags. Step 4
// needs tag "a" for an even N and "x" for an odd one.
func moveRun(b *testing.B, gap time.Duration, first int, tags ...string) {
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
	var took time.Duration
	for i := range b.N {
		if gap > 0 {
			time.Sleep(gap)
		}
		t0 := time.Now()
		if err := h.Post(context.Background(), trip{N: i, Step: first}); err != nil {
			b.Fatal(err)
		}
		if r := <-results; r.Err != nil {
			b.Fatal(r.Err)
		}
		took += time.Since(t0)
	}
	b.StopTimer()
	b.ReportMetric(float64(took.Microseconds())/float64(b.N), "µs/item")
	h.Close()
	_ = h.Wait(context.Background())
}
