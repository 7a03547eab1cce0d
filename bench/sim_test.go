package bench_test

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

// BenchmarkSim runs the chain rate -> parallel(4) -> buffer(100) in the
// simulator, under overload, for 10 virtual seconds an op: the rate stage
// lets 5,000 items a second through, the parallel stage's work takes 1 ms
// (noisy) at up to 4 at once, the bottleneck, and the buffer's flushes
// take 2 ms. It reports the messages delivered to the agents' evolve
// functions a second of wall time: what a simulated message costs, the
// agents' evolve included (sim's own BenchmarkChain, in this report).
func BenchmarkSim(b *testing.B) {
	pace, err := rate.Stage(rate.Config[int]{Rate: 5000, Burst: 100})
	if err != nil {
		b.Fatal(err)
	}
	work, err := parallel.Stage(parallel.Config{Limit: 4}, func(_ context.Context, v int) (int, error) { return 2 * v, nil })
	if err != nil {
		b.Fatal(err)
	}
	batch, err := buffer.Stage(buffer.Config[int]{Size: 100}, nil)
	if err != nil {
		b.Fatal(err)
	}
	chain := sim.Chain[int, []int]{Stage: compose.Pipe3(pace, work, batch), Item: func(n uint64) int { return int(n) }}
	cfg := sim.Config{
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
		res, err := sim.Run(cfg, chain)
		if err != nil {
			b.Fatal(err)
		}
		msgs += res.Messages
	}
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds(), "msgs/s")
}
