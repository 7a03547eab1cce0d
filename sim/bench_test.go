package sim_test

import (
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/sim"
)

// BenchmarkRun simulates an agent with a limit of 8 under overload, with
// noisy service times, and reports simulated messages (delivered to evolve)
// per second of wall time. Each iteration is one run of 10 virtual seconds:
// about 8,000 items, two messages each. "parallel" drives the parallel
// agent; "minimal" an agent that does next to nothing, which measures the
// simulator alone.
func BenchmarkRun(b *testing.B) {
	b.Run("parallel", func(b *testing.B) { benchRun(b, parallelAgent(b, 8)) })
	b.Run("minimal", func(b *testing.B) { benchRun(b, minimal(8)) })
}

// benchRun runs a under overload for 10 virtual seconds per iteration and
// reports the messages delivered per second of wall time.
func benchRun[S, I, W, R, O any](b *testing.B, a sim.Agent[S, I, W, R, O]) {
	cfg := sim.Config{
		Seed:     1,
		Capacity: sim.Curve{Base: 10 * time.Millisecond, Knee: 8, Contention: 0.5, Noise: sim.Noise{Jitter: 0.3}},
		Arrivals: sim.Flood{},
		Duration: 10 * time.Second,
	}
	b.ReportAllocs()
	msgs := int64(0)
	for b.Loop() {
		res, err := sim.Run(cfg, a)
		if err != nil {
			b.Fatal(err)
		}
		msgs += res.Messages
	}
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds(), "msgs/s")
}

// parallelSim is a parallel agent as the simulator sees it: its Starts
// carry the items of a batch, and its Dones their results.
type parallelSim = sim.Agent[parallel.State[int, int], int, []int, []parallel.Result[int], parallel.Result[int]]

// parallelAgent is a parallel agent with this limit, unordered, one item per
// batch, doubling each item, as the simulator sees it.
func parallelAgent(tb testing.TB, limit int) parallelSim {
	tb.Helper()
	s, err := parallel.NewState[int, int](parallel.Config{Limit: limit, Unordered: true, MaxBatch: 1})
	if err != nil {
		tb.Fatal(err)
	}
	return parallelSim{
		State:  s,
		Evolve: parallel.Evolve[int, int],
		Queue:  s.Status().Queue,
		Item:   func(n uint64) int { return int(n) },
		Work:   double,
		Limit:  func(s parallel.State[int, int]) int { return s.Status().Limit },
	}
}

// double is the parallel agent's work on a batch: one result per item, in
// order (the agent numbers them itself).
func double(items []int) ([]parallel.Result[int], error) {
	out := make([]parallel.Result[int], len(items))
	for i, v := range items {
		out[i].Value = 2 * v
	}
	return out, nil
}

// counter is the state of the minimal agent: items waiting and running,
// and the next Start ID.
type counter struct {
	waiting, running int
	next             uint64
}

// minimal is the cheapest agent that keeps limit items in flight: it
// measures the simulator rather than the agent.
func minimal(limit int) sim.Agent[counter, int, int, int, int] {
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
	return sim.Agent[counter, int, int, int, int]{Evolve: evolve, Queue: 64}
}
