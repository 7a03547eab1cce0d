package bench_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/parallel"
	"github.com/sourcegraph/conc/pool"
)

// scaleLimitsFlag are the limits BenchmarkScale runs at. A run carries
// -scale-waves times the limit's worth of items: about that many times the
// mean sleep, 0.4 s by default, at the ideal rate.
var (
	scaleLimitsFlag = flag.String("scale-limits", "10,100,1000,10000", "BenchmarkScale's limits, separated by commas")
	scaleWavesFlag  = flag.Int("scale-waves", 40, "BenchmarkScale's items per run, in multiples of the limit")
)

// scaleLimits returns the limits of -scale-limits.
func scaleLimits(b *testing.B) []int {
	var out []int
	for _, f := range strings.Split(*scaleLimitsFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			b.Fatalf("-scale-limits: %q is not a limit", f)
		}
		out = append(out, n)
	}
	return out
}

// BenchmarkScale runs items whose work sleeps 5 to 15 ms (drawn from a
// seeded generator), as calls over a network do, -scale-waves (40) times the
// limit of them, at a limit of 10, 100, 1,000 and 10,000 in flight (-scale-limits): evolve is a
// parallel agent with that Limit and a Queue of twice it, in input order
// and (evolve-unordered) not, fed with Post; goroutines starts a goroutine
// per item behind a semaphore (a buffered channel) of the limit; conc
// submits one task per item to pool.New().WithMaxGoroutines(limit). It runs
// once per call and reports items/s, of-ideal (items/s over the limit
// divided by the mean sleep), and peak-MB: the highest reading, every
// millisecond from a GC'd start, of the heap's object bytes plus the
// goroutine stacks.
//
// The evolve variants run on one runtime, made before the first run, as a
// program makes one for all its agents: a run measures an agent, not the
// making of a runtime. (Making one allocates about 3 MB that protoactor's
// actor system lets go of at once, and keeps about 50 KB: see
// BenchmarkNewRuntime.) A run's agent has gone by the run's end, so the runs
// leave one another nothing.
func BenchmarkScale(b *testing.B) {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	for _, limit := range scaleLimits(b) {
		b.Run(fmt.Sprintf("limit=%d", limit), func(b *testing.B) {
			b.Run("evolve", func(b *testing.B) { scaleRun(b, limit, scaleEvolve(rt, false)) })
			b.Run("evolve-unordered", func(b *testing.B) { scaleRun(b, limit, scaleEvolve(rt, true)) })
			b.Run("goroutines", func(b *testing.B) { scaleRun(b, limit, scaleGoroutines) })
			b.Run("conc", func(b *testing.B) { scaleRun(b, limit, scaleConc) })
		})
	}
}

// scaleSleeps returns n sleeps from 5 to 15 ms, the same for every run,
// and their mean.
func scaleSleeps(n int) ([]time.Duration, time.Duration) {
	r := rand.New(rand.NewPCG(25, 10))
	out := make([]time.Duration, n)
	var sum time.Duration
	for i := range out {
		out[i] = 5*time.Millisecond + time.Duration(r.Int64N(int64(10*time.Millisecond)))
		sum += out[i]
	}
	return out, sum / time.Duration(n)
}

// scaleRun runs program once over limit times -scale-waves items with a
// sink that checks every item, and reports the figures.
func scaleRun(b *testing.B, limit int, program func(limit int, sleeps []time.Duration, sink func(int)) error) {
	n := limit * *scaleWavesFlag
	sleeps, mean := scaleSleeps(n)
	s := newSeen(n)
	var mu sync.Mutex
	sink := func(i int) {
		mu.Lock()
		s.mark(i)
		mu.Unlock()
	}
	run := startFixed(b)
	runtime.GC()
	mem := sampleMemory(time.Millisecond)
	err := program(limit, sleeps, sink)
	peak := mem.stop()
	elapsed := run.done(n)
	if err != nil {
		b.Fatal(err)
	}
	s.check(b)
	perSec := float64(n) / elapsed.Seconds()
	b.ReportMetric(perSec, "items/s")
	b.ReportMetric(perSec/(float64(limit)/mean.Seconds()), "of-ideal")
	b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
}

// scaleEvolve returns the program that runs the items through a parallel
// agent on rt, in input order or not.
func scaleEvolve(rt *agent.Runtime, unordered bool) func(limit int, sleeps []time.Duration, sink func(int)) error {
	return func(limit int, sleeps []time.Duration, sink func(int)) error {
		work := func(_ context.Context, i int) (int, error) {
			time.Sleep(sleeps[i])
			return i, nil
		}
		h, err := parallel.New(rt, parallel.Config{Limit: limit, Queue: 2 * limit, Unordered: unordered}, work,
			func(r parallel.Result[int]) { sink(r.Value) })
		if err != nil {
			return err
		}
		ctx := context.Background()
		for i := range sleeps {
			if err := h.Post(ctx, i); err != nil {
				return err
			}
		}
		h.Close()
		return h.Wait(ctx)
	}
}

// scaleGoroutines starts a goroutine per item once the semaphore has room.
func scaleGoroutines(limit int, sleeps []time.Duration, sink func(int)) error {
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := range sleeps {
		sem <- struct{}{}
		wg.Go(func() {
			time.Sleep(sleeps[i])
			sink(i)
			<-sem
		})
	}
	wg.Wait()
	return nil
}

// scaleConc submits one task per item to a conc pool of limit goroutines.
func scaleConc(limit int, sleeps []time.Duration, sink func(int)) error {
	p := pool.New().WithMaxGoroutines(limit)
	for i := range sleeps {
		p.Go(func() {
			time.Sleep(sleeps[i])
			sink(i)
		})
	}
	p.Wait()
	return nil
}

// memorySampler reads the heap's object bytes plus the goroutine stacks
// every interval, from a goroutine that stop ends and waits for, and keeps
// the highest reading: what a program holds, its goroutines included.
type memorySampler struct {
	quit chan struct{}
	wg   sync.WaitGroup
	peak uint64
}

// memoryInUse returns the heap's object bytes plus the goroutine stacks.
func memoryInUse() uint64 {
	s := []metrics.Sample{{Name: heapMetric}, {Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() + s[1].Value.Uint64()
}

// sampleMemory starts a sampler.
func sampleMemory(interval time.Duration) *memorySampler {
	m := &memorySampler{quit: make(chan struct{}), peak: memoryInUse()}
	m.wg.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-m.quit:
				return
			case <-t.C:
				m.peak = max(m.peak, memoryInUse())
			}
		}
	})
	return m
}

// stop ends the sampler, waits for it, takes one last reading and returns
// the peak in bytes.
func (m *memorySampler) stop() uint64 {
	close(m.quit)
	m.wg.Wait()
	return max(m.peak, memoryInUse())
}

// BenchmarkNewRuntime/open-and-shut makes runtimes and shuts them down:
// B/op is what making and shutting one allocates, and kept-KB what a
// runtime with no agent keeps on the heap (the live heap with b.N runtimes
// open, over b.N, less the live heap before).
func BenchmarkNewRuntime(b *testing.B) {
	b.Run("open-and-shut", benchNewRuntime)
}

// benchNewRuntime is BenchmarkNewRuntime's one variant.
func benchNewRuntime(b *testing.B) {
	b.ReportAllocs()
	runtime.GC()
	before := liveHeap()
	var rts []*agent.Runtime
	for b.Loop() {
		rts = append(rts, agent.NewRuntime())
	}
	b.StopTimer()
	runtime.GC()
	kept := float64(liveHeap()-before) / float64(len(rts))
	for _, rt := range rts {
		if err := rt.Shutdown(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(kept/1024, "kept-KB")
}

// liveHeap returns the heap's object bytes: after a runtime.GC, what is
// live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
