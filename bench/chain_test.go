package bench_test

import (
	"context"
	"math"
	"sync"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/panjf2000/ants/v2"
	"github.com/sourcegraph/conc/pool"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"golang.org/x/sync/errgroup"
)

const (
	chainLimit = 4   // work items in flight
	chainBatch = 100 // items per batch
	chainQueue = agent.DefaultQueue
)

// BenchmarkChain pushes b.N items through at most 4 workers computing x*2+1,
// then batches of 100, to a sink that marks every item; one op is one item.
// The benchmark's goroutine feeds the items in every variant.
func BenchmarkChain(b *testing.B) {
	b.Run("evolve", chainEvolve)
	b.Run("evolve-metrics", chainEvolveMetrics)
	b.Run("channels", chainChannels)
	b.Run("conc", chainConc)
	b.Run("errgroup", chainErrgroup)
	b.Run("ants", chainAnts)
}

// chainEvolve is a compose chain, compose.Pipe3 of a rate stage with no real
// limit, a parallel stage of limit 4 (in input order, its default) and a
// buffer stage of batches of 100, started with the sink and fed with Post.
func chainEvolve(b *testing.B) { chainEvolveOn(b, nil) }

// chainEvolveMetrics is chainEvolve on a runtime that publishes its agents'
// metrics to an OpenTelemetry SDK meter provider, whose reader has the
// agents' own histograms as a producer (agent.WithHistograms), and is read
// once, as the chain ends: the cost of turning metrics on. Every item is
// counted in the queue wait's histogram of each of the three agents.
func chainEvolveMetrics(b *testing.B) {
	hist := agent.NewHistograms()
	reader := sdkmetric.NewManualReader(sdkmetric.WithProducer(hist))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	var rm metricdata.ResourceMetrics
	chainEvolveOn(b, func() {
		if err := reader.Collect(context.Background(), &rm); err != nil {
			b.Fatal(err)
		}
	}, agent.WithMeterProvider(mp), agent.WithHistograms(hist))
	if n := waitsCounted(rm); n != 3*uint64(b.N) {
		b.Fatalf("the queue wait's histograms counted %d items, want 3 × %d", n, b.N)
	}
}

// waitsCounted returns how many items the histograms of the queue's wait
// in rm counted, over all agents.
func waitsCounted(rm metricdata.ResourceMetrics) uint64 {
	var n uint64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if h, ok := m.Data.(metricdata.Histogram[float64]); ok && m.Name == "evolve.queue.wait" {
				for _, p := range h.DataPoints {
					n += p.Count
				}
			}
		}
	}
	return n
}

// chainEvolveOn runs chainEvolve on a runtime made with opts, and calls
// end, when not nil, once the chain has ended, before the timer stops.
func chainEvolveOn(b *testing.B, end func(), opts ...agent.Option) {
	rt := agent.NewRuntime(opts...)
	defer rt.Shutdown(context.Background())
	limit, err := rate.Stage(rate.Config[int]{Rate: math.MaxFloat64, Burst: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	work, err := parallel.Stage(parallel.Config{Limit: chainLimit}, func(_ context.Context, x int) (int, error) { return double(x), nil })
	if err != nil {
		b.Fatal(err)
	}
	batches, err := buffer.Stage(buffer.Config[int]{Size: chainBatch}, nil)
	if err != nil {
		b.Fatal(err)
	}
	s := newSeen(b.N)
	c, err := compose.Start(rt, compose.Pipe3(limit, work, batches), func(batch []int) {
		for _, v := range batch {
			s.mark(odd(v))
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := c.Post(ctx, i); err != nil {
			b.Fatal(err)
		}
	}
	c.Close()
	if err := c.Wait(ctx); err != nil {
		b.Fatal(err)
	}
	if end != nil {
		end()
	}
	b.StopTimer()
	s.check(b)
}

// chainChannels is what a Go programmer writes by hand: a channel to 4
// long-lived workers, a channel to a batcher, a channel of batches to the
// sink. Channels hold 64 items, as evolve's input queues do.
func chainChannels(b *testing.B) {
	s := newSeen(b.N)
	b.ReportAllocs()
	b.ResetTimer()
	in := make(chan int, chainQueue)
	out := make(chan int, chainQueue)
	done := batchToSink(out, s)
	var workers sync.WaitGroup
	for range chainLimit {
		workers.Go(func() {
			for x := range in {
				out <- double(x)
			}
		})
	}
	for i := range b.N {
		in <- i
	}
	close(in)
	workers.Wait()
	close(out)
	<-done
	b.StopTimer()
	s.check(b)
}

// chainConc submits one task per item to a conc pool of at most 4
// goroutines; each task sends its result to the batcher.
func chainConc(b *testing.B) {
	s := newSeen(b.N)
	b.ReportAllocs()
	b.ResetTimer()
	out := make(chan int, chainQueue)
	done := batchToSink(out, s)
	p := pool.New().WithMaxGoroutines(chainLimit)
	for i := range b.N {
		p.Go(func() { out <- double(i) })
	}
	p.Wait()
	close(out)
	<-done
	b.StopTimer()
	s.check(b)
}

// chainErrgroup runs one goroutine per item under errgroup's SetLimit(4);
// each sends its result to the batcher.
func chainErrgroup(b *testing.B) {
	s := newSeen(b.N)
	b.ReportAllocs()
	b.ResetTimer()
	out := make(chan int, chainQueue)
	done := batchToSink(out, s)
	var g errgroup.Group
	g.SetLimit(chainLimit)
	for i := range b.N {
		g.Go(func() error {
			out <- double(i)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	close(out)
	<-done
	b.StopTimer()
	s.check(b)
}

// chainAnts submits one task per item to an ants pool of 4 workers (Submit
// blocks while all 4 are busy); a WaitGroup tells when the last task is done.
func chainAnts(b *testing.B) {
	p, err := ants.NewPool(chainLimit)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Release()
	s := newSeen(b.N)
	b.ReportAllocs()
	b.ResetTimer()
	out := make(chan int, chainQueue)
	done := batchToSink(out, s)
	var tasks sync.WaitGroup
	for i := range b.N {
		tasks.Add(1)
		err := p.Submit(func() {
			defer tasks.Done()
			out <- double(i)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	tasks.Wait()
	close(out)
	<-done
	b.StopTimer()
	s.check(b)
}

// batchToSink starts the batcher and the sink the peer variants share: the
// batcher cuts batches of 100 values (and a last, shorter one when values is
// closed) and sends each over a channel to the sink's goroutine, which marks
// every value. The returned channel is closed once the sink has seen the last
// batch.
func batchToSink(values <-chan int, s *seen) <-chan struct{} {
	batches := make(chan []int, 1)
	done := make(chan struct{})
	go func() {
		defer close(batches)
		batch := make([]int, 0, chainBatch)
		for v := range values {
			batch = append(batch, v)
			if len(batch) == chainBatch {
				batches <- batch
				batch = make([]int, 0, chainBatch)
			}
		}
		if len(batch) > 0 {
			batches <- batch
		}
	}()
	go func() {
		defer close(done)
		for batch := range batches {
			for _, v := range batch {
				s.mark(odd(v))
			}
		}
	}()
	return done
}
