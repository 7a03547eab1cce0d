package sim_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/evolvekit/evolve/sim"
	"github.com/evolvekit/evolve/spawn"
)

// BenchmarkRun simulates a lone agent with a limit of 8 under overload,
// with noisy service times, and reports simulated messages (delivered to
// evolve) per second of wall time. Each iteration is one run of 10 virtual
// seconds: about 8,000 items, two messages each. "parallel" drives the
// parallel agent; "minimal" an agent that does next to nothing, which
// measures the simulator alone.
func BenchmarkRun(b *testing.B) {
	b.Run("parallel", func(b *testing.B) { benchRun(b, parallelAgent(b, 8)) })
	b.Run("minimal", func(b *testing.B) { benchRun(b, minimal(b, 8)) })
}

// BenchmarkRunLimit simulates a lone parallel agent under overload at a
// limit of 10, 1,000 and 10,000, each item's work taking 10 ms (noisy)
// with no contention, for 20 waves of the limit's items, 20,000 at least,
// and reports simulated messages per second of wall time: what a message
// costs the simulator and the agent must not grow with the limit.
func BenchmarkRunLimit(b *testing.B) {
	for _, limit := range []int{10, 1000, 10_000} {
		b.Run(fmt.Sprintf("limit=%d", limit), func(b *testing.B) {
			base := 10 * time.Millisecond
			items := max(20_000, 20*limit)
			cfg := sim.Config{
				Seed:     1,
				Capacity: []sim.Capacity{sim.Curve{Base: base, Knee: limit, Noise: sim.Noise{Jitter: 0.3}}},
				Arrivals: sim.Flood{},
				Duration: time.Duration(items) * base / time.Duration(limit),
			}
			bench(b, cfg, parallelAgent(b, limit))
		})
	}
}

// benchRun runs c under overload for 10 virtual seconds per iteration and
// reports the messages delivered per second of wall time.
func benchRun[O any](b *testing.B, c sim.Chain[int, O]) {
	cfg := sim.Config{
		Seed:     1,
		Capacity: []sim.Capacity{sim.Curve{Base: 10 * time.Millisecond, Knee: 8, Contention: 0.5, Noise: sim.Noise{Jitter: 0.3}}},
		Arrivals: sim.Flood{},
		Duration: 10 * time.Second,
	}
	bench(b, cfg, c)
}

// BenchmarkChain simulates the chain rate -> parallel(4) -> buffer(100)
// under overload and reports the messages delivered to the agents'
// evolve functions per second of wall time. Each iteration is one run of
// 10 virtual seconds: the rate stage lets 5,000 items a second through,
// the parallel stage's work takes 1 ms at up to 4 at once (4,000 a second,
// the bottleneck), and the buffer's flushes take 2 ms.
func BenchmarkChain(b *testing.B) {
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
	bench(b, cfg, benchChain(b))
}

// bench runs c in cfg once per iteration and reports the messages
// delivered per second of wall time.
func bench[I, O any](b *testing.B, cfg sim.Config, c sim.Chain[I, O]) {
	b.ReportAllocs()
	msgs := int64(0)
	for b.Loop() {
		res, err := sim.Run(cfg, c)
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
	batch, err := buffer.Stage(buffer.Config[int]{Size: 100}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return sim.Chain[int, []int]{Stage: compose.Pipe3(pace, work, batch), Item: func(n uint64) int { return int(n) }}
}

// parallelAgent is a lone parallel agent with this limit, unordered, one
// item per batch, doubling each item, whose limit the traces record.
func parallelAgent(tb testing.TB, limit int) sim.Chain[int, int] {
	tb.Helper()
	stage, err := parallel.Stage(parallel.Config{Limit: limit, Unordered: true, MaxBatch: 1}, double)
	if err != nil {
		tb.Fatal(err)
	}
	return sim.Chain[int, int]{Stage: stage, Item: func(n uint64) int { return int(n) }, Limit: limitOf}
}

// double is the parallel agent's work on an item.
func double(_ context.Context, v int) (int, error) { return 2 * v, nil }

// counter is the state of the minimal agent: items waiting and running,
// and the next Start ID.
type counter struct {
	waiting, running int
	next             uint64
}

// minimal is the cheapest agent that keeps limit items in flight: it
// measures the simulator rather than the agent.
func minimal(tb testing.TB, limit int) sim.Chain[int, int] {
	tb.Helper()
	evolve := func(s counter, m agent.Msg) (counter, []agent.Effect) {
		switch m := m.(type) {
		case agent.Input[int]:
			s.waiting += len(m.Items)
		case agent.Done[int]:
			s.running--
		}
		n := min(s.waiting, limit-s.running)
		if n <= 0 {
			return s, nil
		}
		fx := make([]agent.Effect, 0, n+1)
		for range n {
			fx = append(fx, agent.Start[int]{ID: s.next})
			s.next++
		}
		s.waiting -= n
		s.running += n
		return s, append(fx, agent.Demand{N: n})
	}
	stage, err := spawn.Stage[int, struct{}](spawn.Spec[counter, int, int, int]{Name: "minimal", Evolve: evolve, Queue: 64})
	if err != nil {
		tb.Fatal(err)
	}
	return sim.Chain[int, int]{Stage: stage}
}
