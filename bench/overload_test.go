package bench_test

import (
	"context"
	"flag"
	"math"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
)

const (
	overloadBody = 4 << 10          // bytes of payload each item carries
	overloadTick = time.Millisecond // how often the heap is sampled
)

// The overload run's size and the sink's time per item: 20,000 items at
// 100 µs unless the flags say otherwise, as in
//
//	go test -run XXX -bench Overload/evolve -overload-items 1000000 -overload-sink 2us
//
// which shows the peak heap staying where the bounds put it however many
// items pass.
var (
	overloadItemsFlag = flag.Int("overload-items", 20_000, "items per BenchmarkOverload run")
	overloadSinkFlag  = flag.Duration("overload-sink", 100*time.Microsecond, "the BenchmarkOverload sink's time per item")
)

// request is an overload item: a sequence number and a payload, as a request
// with its body would be.
type request struct {
	seq  int
	body []byte
}

// newRequest is what the producer does per item: allocate and fill a body.
func newRequest(i int) request {
	body := make([]byte, overloadBody)
	body[0] = byte(i)
	return request{seq: i, body: body}
}

// BenchmarkOverload pushes 20,000 items (-overload-items) carrying 4 KiB
// each from a producer that makes them as fast as it can (well under 1 µs
// an item) through at most 4 workers and batches of 100 to a sink that
// takes 100 µs an item (-overload-sink), so the producer is more than 100
// times faster than the sink. It runs once per call, whatever b.N, and
// reports the peak of the heap's object bytes, live and not yet swept,
// sampled every millisecond from a GC'd start, as peak-heap-MB; the peak of
// the heap the last GC found live as peak-live-MB; and ns/op, B/op and
// allocs/op per item.
func BenchmarkOverload(b *testing.B) {
	b.Run("evolve", func(b *testing.B) { overloadRun(b, overloadEvolve) })
	b.Run("unbounded", func(b *testing.B) { overloadRun(b, overloadUnbounded) })
}

// overloadRun runs program once with a slow sink that checks every item and
// reports the figures.
func overloadRun(b *testing.B, program func(ctx context.Context, sink func([]request)) error) {
	s := newSeen(*overloadItemsFlag)
	sink := func(batch []request) {
		time.Sleep(time.Duration(len(batch)) * *overloadSinkFlag)
		for _, r := range batch {
			if r.body[0] != byte(r.seq) {
				s.dups++
			}
			s.mark(r.seq)
		}
	}
	run := startFixed(b)
	runtime.GC()
	heap := sampleHeap(overloadTick)
	err := program(context.Background(), sink)
	peak := heap.stop()
	run.done(*overloadItemsFlag)
	if err != nil {
		b.Fatal(err)
	}
	s.check(b)
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(heap.live)/(1<<20), "peak-live-MB")
}

// overloadEvolve is BenchmarkChain's chain carrying requests: rate (no real
// limit) -> parallel (limit 4, work that reads the body) -> buffer (batches
// of 100) -> the slow sink, fed with Post, which blocks while the chain is
// full.
func overloadEvolve(ctx context.Context, sink func([]request)) error {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	limit, err := rate.Stage(rate.Config[request]{Rate: math.MaxFloat64, Burst: 1 << 30})
	if err != nil {
		return err
	}
	work, err := parallel.Stage(parallel.Config{Limit: chainLimit}, func(_ context.Context, r request) (request, error) {
		return touch(r), nil
	})
	if err != nil {
		return err
	}
	batches, err := buffer.Stage(buffer.Config[request]{Size: chainBatch}, nil)
	if err != nil {
		return err
	}
	c, err := compose.Start(rt, compose.Pipe3(limit, work, batches), sink)
	if err != nil {
		return err
	}
	for i := range *overloadItemsFlag {
		if err := c.Post(ctx, newRequest(i)); err != nil {
			return err
		}
	}
	c.Close()
	return c.Wait(ctx)
}

// overloadUnbounded is the naive program: the producer appends every request
// to a slice-backed queue (a mutex and a sync.Cond, the usual "unbounded
// channel"), so nothing ever slows it down; 4 workers take from the queue,
// then a batcher of 100 feeds the slow sink over channels. The backlog waits
// in the queue.
func overloadUnbounded(_ context.Context, sink func([]request)) error {
	q := &unboundedQueue{}
	q.ready = sync.NewCond(&q.mu)
	out := make(chan request, chainQueue)
	batches := make(chan []request, 1)
	var workers sync.WaitGroup
	for range chainLimit {
		workers.Go(func() {
			for {
				r, ok := q.take()
				if !ok {
					return
				}
				out <- touch(r)
			}
		})
	}
	go func() {
		defer close(batches)
		batch := make([]request, 0, chainBatch)
		for r := range out {
			batch = append(batch, r)
			if len(batch) == chainBatch {
				batches <- batch
				batch = make([]request, 0, chainBatch)
			}
		}
		if len(batch) > 0 {
			batches <- batch
		}
	}()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for batch := range batches {
			sink(batch)
		}
	}()
	for i := range *overloadItemsFlag {
		q.put(newRequest(i))
	}
	q.close()
	workers.Wait()
	close(out)
	<-done
	return nil
}

// touch is the overload work: it reads the request's body.
func touch(r request) request {
	if len(r.body) != overloadBody {
		panic("bench: a request lost its body")
	}
	return r
}

// unboundedQueue is a FIFO with no bound: put never blocks.
type unboundedQueue struct {
	mu     sync.Mutex
	ready  *sync.Cond
	items  []request
	closed bool
}

func (q *unboundedQueue) put(r request) {
	q.mu.Lock()
	q.items = append(q.items, r)
	q.mu.Unlock()
	q.ready.Signal()
}

// take returns the oldest request, waiting for one, and false once the queue
// is closed and empty.
func (q *unboundedQueue) take() (request, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.closed {
		q.ready.Wait()
	}
	if len(q.items) == 0 {
		return request{}, false
	}
	r := q.items[0]
	q.items[0] = request{}
	q.items = q.items[1:]
	return r, true
}

func (q *unboundedQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.ready.Broadcast()
}
