package bench_test

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// seen records which items a sink has seen, to check at the end of a
// benchmark that every item arrived exactly once. It is allocated before the
// timer starts, so marking an item costs one store and no allocation.
type seen struct {
	marks []bool
	dups  int
	count int
}

func newSeen(n int) *seen { return &seen{marks: make([]bool, n)} }

// mark records item i; out-of-range items count as duplicates.
func (s *seen) mark(i int) {
	if i < 0 || i >= len(s.marks) || s.marks[i] {
		s.dups++
		return
	}
	s.marks[i] = true
	s.count++
}

// check fails b unless every item was seen exactly once.
func (s *seen) check(b *testing.B) {
	b.Helper()
	if s.dups != 0 || s.count != len(s.marks) {
		b.Fatalf("sink saw %d of %d items, and %d duplicates or strays", s.count, len(s.marks), s.dups)
	}
}

// checkFirst fails b unless the items seen were exactly the first k, each
// once.
func (s *seen) checkFirst(b *testing.B, k int) {
	b.Helper()
	if s.dups != 0 || s.count != k || (k > 0 && !s.marks[k-1]) {
		b.Fatalf("sink saw %d items and %d duplicates or strays; want the first %d once each", s.count, s.dups, k)
	}
}

// odd inverts the chain's work, x*2+1, so the sink can mark the item a value
// came from.
func odd(v int) int { return (v - 1) / 2 }

// double is the chain's work.
func double(x int) int { return x*2 + 1 }

// fixedRun measures a benchmark whose work is a fixed number of items, run
// once per call whatever b.N: ns/op, B/op and allocs/op are reported per item
// of that one run, replacing the figures the testing package would compute by
// dividing by b.N. (The testing package prints B/op and allocs/op as whole
// numbers, so a fraction of an allocation per item is cut off.) It also
// reports cpu-ns/op: the CPU time the process spent over the run (user and
// system, every goroutine, the garbage collector's included), per item.
//
// The benchmark timer keeps running, so the testing package sees how long a
// call took: a run that lasts at least -benchtime (1 s by default) is not
// repeated, and -benchtime 1x runs it once.
type fixedRun struct {
	b     *testing.B
	start time.Time
	mem   runtime.MemStats
	cpu   time.Duration
}

// processCPU returns the CPU time the process has spent so far.
func processCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// startFixed takes the starting time and allocation counts.
func startFixed(b *testing.B) *fixedRun {
	b.ReportAllocs()
	r := &fixedRun{b: b}
	runtime.ReadMemStats(&r.mem)
	r.cpu = processCPU()
	r.start = time.Now()
	return r
}

// done reports the per-item figures of the run for items items and returns
// its elapsed time.
func (r *fixedRun) done(items int) time.Duration {
	elapsed := time.Since(r.start)
	cpu := processCPU() - r.cpu
	var end runtime.MemStats
	runtime.ReadMemStats(&end)
	n := float64(items)
	r.b.ReportMetric(float64(elapsed.Nanoseconds())/n, "ns/op")
	r.b.ReportMetric(float64(end.Mallocs-r.mem.Mallocs)/n, "allocs/op")
	r.b.ReportMetric(float64(end.TotalAlloc-r.mem.TotalAlloc)/n, "B/op")
	r.b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/op")
	return elapsed
}

// heapSampler reads the bytes of live and unswept heap objects every
// interval, from a goroutine that stop ends and waits for, and keeps the
// highest reading.
type heapSampler struct {
	quit chan struct{}
	wg   sync.WaitGroup
	peak uint64
	live uint64 // the peak of the heap the last GC found live
}

const (
	heapMetric = "/memory/classes/heap/objects:bytes"
	liveMetric = "/gc/heap/live:bytes"
)

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// heapLive returns the heap the last GC found live: what the program held,
// without the garbage not yet collected.
func heapLive() uint64 {
	s := []metrics.Sample{{Name: liveMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sampleHeap starts a sampler.
func sampleHeap(interval time.Duration) *heapSampler {
	h := &heapSampler{quit: make(chan struct{}), peak: heapObjects()}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-h.quit:
				return
			case <-t.C:
				h.peak = max(h.peak, heapObjects())
				h.live = max(h.live, heapLive())
			}
		}
	}()
	return h
}

// stop ends the sampler, waits for it, takes one last reading and returns
// the peak in bytes.
func (h *heapSampler) stop() uint64 {
	close(h.quit)
	h.wg.Wait()
	return max(h.peak, heapObjects())
}

// embeddedJetStream starts a NATS server with JetStream in this process,
// its store in a directory of its own and no port, as durable.Embedded
// does, and returns a JetStream context on a connection to it; the
// connection and the server end with the benchmark.
func embeddedJetStream(b *testing.B) jetstream.JetStream {
	srv, err := server.NewServer(&server.Options{JetStream: true, StoreDir: b.TempDir(), DontListen: true, NoLog: true, NoSigs: true})
	if err != nil {
		b.Fatal(err)
	}
	srv.Start()
	b.Cleanup(func() {
		srv.Shutdown()
		srv.WaitForShutdown()
	})
	if !srv.ReadyForConnections(10 * time.Second) {
		b.Fatal("the embedded server did not start")
	}
	nc, err := nats.Connect("", nats.InProcessServer(srv))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		b.Fatal(err)
	}
	return js
}
