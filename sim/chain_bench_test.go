package sim_test

import (
	"context"
	"testing"
	"time"

	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/evolvekit/evolve/sim"
)

// BenchmarkChain simulates the chain rate -> parallel(4) -> buffer(100)
// under overload and reports the messages delivered to the agents'
// evolve functions per second of wall time. Each iteration is one run of
// 10 virtual seconds: the rate stage lets 5,000 items a second through,
// the parallel stage's work takes 1 ms at up to 4 at once (4,000 a second,
// the bottleneck), and the buffer's flushes take 2 ms.
func BenchmarkChain(b *testing.B) {
	chain := benchChain(b)
	cfg := sim.ChainConfig{
		Seed:     1,
		Arrivals: sim.Flood{},
		Duration: 10 * time.Second,
		Capacity: []sim.Capacity{
			nil,
			sim.Curve{Base: time.Millisecond, Knee: 4, Noise: sim.Noise{Jitter: 0.3}},
			sim.Curve{Base: 2 * time.Millisecond, Knee: 1},
		},
	}
	b.ReportAllocs()
	msgs := int64(0)
	for b.Loop() {
		res, err := sim.RunChain(cfg, chain)
		if err != nil {
			b.Fatal(err)
		}
		msgs += res.Messages
	}
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds(), "msgs/s")
}

// benchChain is the chain BenchmarkChain runs.
func benchChain(tb testing.TB) sim.Chain[int, []int] {
	tb.Helper()
	pace, err := rate.Stage(rate.Config[int]{Rate: 5000, Burst: 100})
	if err != nil {
		tb.Fatal(err)
	}
	work, err := parallel.Stage(parallel.Config{Limit: 4}, func(_ context.Context, v int) (int, error) { return 2 * v, nil })
	if err != nil {
		tb.Fatal(err)
	}
	batch, err := buffer.Stage(buffer.Config[int]{Size: 100}, func(context.Context, []int) error { return nil })
	if err != nil {
		tb.Fatal(err)
	}
	return sim.Chain[int, []int]{Stage: compose.Pipe3(pace, work, batch), Item: func(n uint64) int { return int(n) }}
}
