//go:build !race

package bench_test

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// The remote stage's settings for tiny items, whose work takes no time: a
// deep pipeline, not many slots. Each worker runs remoteSlots items at once
// and holds up to remotePrefetch more waiting for a slot (the master grants
// that much), so that a slot never waits a round trip for its next item; a
// message to a worker carries at most remoteMaxBatch items, the master
// accepts up to remoteQueue items ahead of the workers and has up to
// remoteWindow out at once, enough for both workers' slots and prefetch;
// the codec is the default, JSON.
const (
	remoteSlots    = 64
	remotePrefetch = 2048
	remoteMaxBatch = 512
	remoteQueue    = 2048
	remoteWindow   = 8192
	remoteStage    = "double"
	// remoteSetup bounds a child's start, its registration and its end.
	remoteSetup = 10 * time.Second
	// remoteStart is how many items (messages, in BenchmarkRemoteRaw) go
	// through before the timer starts: the start of a run, whose figures
	// are reported apart (see BenchmarkRemote).
	remoteStart = 100_000
)

// BenchmarkRemote posts b.N ints, one at a time from the benchmark's
// goroutine, to a remote stage (remote.New on its own, on a node on the
// loopback) whose workers, 1 or 2 processes running this test binary, double
// them; the sink checks every result came once, doubled. One op is one item.
// The workers are started and registered, and remoteStart items have gone
// through (posted, and their results back), before the timer starts; the
// timer stops once Close and Wait have returned. So the figures are those
// of the stream, not of its start: a stage's first hundred thousand items
// or so go slower, while its processes' heaps grow (each fresh page of
// memory a page fault, which costs 16 µs on some virtual machines), and
// the start would weigh on a run of a second or so by how long it lasts.
// It is reported apart, as start-ms: the time from the first Post to the
// remoteStart-th result (BenchmarkRemoteRaw reports its own).
//
// It reports items/s, and allocs/item: the allocations of this process,
// the master's, over the timed part, per item (the workers' are not
// counted). It reports the CPU time (user and system, the garbage
// collector's included) per item too: the master's process's over the
// timed part, and the workers' from then to their end, which includes
// their shutdown. On a machine other programs share, these vary less than
// the rates do.
func BenchmarkRemote(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run("workers-"+strconv.Itoa(workers), func(b *testing.B) { remoteStageRun(b, workers) })
	}
}

// remoteStageRun runs one call of BenchmarkRemote with the given number of
// worker processes.
func remoteStageRun(b *testing.B, workers int) {
	node, err := remote.Listen(remote.NodeConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer node.Close()
	rt := agent.NewRuntime()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), remoteSetup)
		defer cancel()
		_ = rt.Shutdown(ctx)
	}()
	s := newSeen(remoteStart + b.N)
	var bad int
	started := make(chan struct{}) // closed once the first remoteStart items are back
	h, err := remote.New(rt, remote.Config[int]{Node: node, Name: remoteStage,
		MaxBatch: remoteMaxBatch, Queue: remoteQueue, Window: remoteWindow, MaxPrefetch: remotePrefetch},
		func(r remote.Result[int]) {
			if r.Err != nil || r.Value != 2*int(r.Seq) {
				bad++
				return
			}
			s.mark(int(r.Seq))
			if s.count == remoteStart {
				close(started)
			}
		})
	if err != nil {
		b.Fatal(err)
	}
	children := make([]*child, workers)
	for i := range children {
		children[i] = startChild(b, "worker", node.Addr(), remoteStage, strconv.Itoa(remoteSlots), "0s", strconv.Itoa(remotePrefetch))
	}
	awaitWorkers(b, h, workers)

	ctx := context.Background()
	start := time.Now()
	for i := range remoteStart {
		if err := h.Post(ctx, i); err != nil {
			b.Fatal(err)
		}
	}
	select {
	case <-started:
	case <-time.After(remoteSetup):
		b.Fatalf("the first %d items did not come back within %v", remoteStart, remoteSetup)
	}
	startTook := time.Since(start)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	masterCPU, workersCPU := processCPU(), childrenCPU(children...)
	b.ResetTimer()
	for i := remoteStart; i < remoteStart+b.N; i++ {
		if err := h.Post(ctx, i); err != nil {
			b.Fatal(err)
		}
	}
	h.Close()
	if err := h.Wait(ctx); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	masterCPU = processCPU() - masterCPU
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N), "allocs/item")
	b.ReportMetric(float64(masterCPU.Nanoseconds())/float64(b.N), "master-cpu-ns/item")
	b.ReportMetric(float64(startTook.Microseconds())/1000, "start-ms")
	if bad != 0 {
		b.Fatalf("%d results failed or were not the item doubled", bad)
	}
	s.check(b)
	// Told the stage has finished, the workers end by themselves. One
	// that ends with an error is logged, not failed: the figures stand.
	for _, c := range children {
		if err := c.wait(remoteSetup); err != nil {
			b.Logf("worker: %v", err)
		}
	}
	workersCPU = childrenCPU(children...) - workersCPU
	b.ReportMetric(float64(workersCPU.Nanoseconds())/float64(b.N), "workers-cpu-ns/item")
}

// awaitWorkers waits, at most remoteSetup, until n workers have registered
// with the master h.
func awaitWorkers(b *testing.B, h agent.Handle[int, remote.Status], n int) {
	b.Helper()
	deadline := time.Now().Add(remoteSetup)
	for {
		st, err := h.Status(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if len(st.Workers) == n {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d workers registered within %v", len(st.Workers), n, remoteSetup)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// BenchmarkRemoteRaw sends b.N small protobuf messages (a
// wrapperspb.Int64Value each), one way, with Root.Send from this process to
// an actor in a child process that counts them, over protoactor remote on
// the loopback; the child answers once it has them all. One op is one
// message. The connection is made, by a first exchange, and remoteStart
// messages have gone the same way (their count answered), before the timer
// starts, as in BenchmarkRemote; start-ms is the time they took. The timer
// stops when the answer is in. It reports msg/s, and allocs/msg: this
// process's allocations over the timed part, per message; and the CPU time
// per message of this process over the timed part and of the sink's from
// then to its end.
func BenchmarkRemoteRaw(b *testing.B) {
	sink := startChild(b, "sink")
	sys, rem := startRemoting()
	defer func() {
		rem.Shutdown(false)
		sys.Shutdown()
	}()
	target := actor.NewPID(sink.line, "sink")
	// Announcing none is answered at once: the connections both ways are
	// then open.
	if _, err := sys.Root.RequestFuture(target, wrapperspb.UInt64(0), remoteSetup).Result(); err != nil {
		b.Fatalf("the sink at %s does not answer: %v", sink.line, err)
	}
	start := time.Now()
	counted := sys.Root.RequestFuture(target, wrapperspb.UInt64(remoteStart), remoteSetup)
	for i := range remoteStart {
		sys.Root.Send(target, wrapperspb.Int64(int64(i)))
	}
	got, err := counted.Result()
	if n, ok := got.(*wrapperspb.UInt64Value); err != nil || !ok || n.Value != remoteStart {
		b.Fatalf("the sink did not count the first %d messages: %v, %v", remoteStart, got, err)
	}
	startTook := time.Since(start)

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	senderCPU, sinkCPU := processCPU(), sink.cpu()
	b.ResetTimer()
	answer := sys.Root.RequestFuture(target, wrapperspb.UInt64(uint64(b.N)), time.Minute+time.Duration(b.N)*time.Microsecond)
	for i := range b.N {
		sys.Root.Send(target, wrapperspb.Int64(int64(i)))
	}
	got, err = answer.Result()
	b.StopTimer()
	senderCPU = processCPU() - senderCPU
	runtime.ReadMemStats(&after)
	if err != nil {
		b.Fatalf("the sink did not answer: %v", err)
	}
	if n := got.(*wrapperspb.UInt64Value).Value; n != uint64(b.N) {
		b.Fatalf("the sink counted %d of %d messages", n, b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msg/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N), "allocs/msg")
	b.ReportMetric(float64(senderCPU.Nanoseconds())/float64(b.N), "sender-cpu-ns/msg")
	b.ReportMetric(float64(startTook.Microseconds())/1000, "start-ms")
	_ = sink.stdin.Close()
	if err := sink.wait(remoteSetup); err != nil {
		b.Errorf("sink: %v", err)
	}
	sinkCPU = sink.cpu() - sinkCPU
	b.ReportMetric(float64(sinkCPU.Nanoseconds())/float64(b.N), "sink-cpu-ns/msg")
}
