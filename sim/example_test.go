package sim_test

import (
	"context"
	"fmt"
	"time"

	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/evolvekit/evolve/sim"
)

// Run drives an agent in virtual time. Here a lone parallel agent with a
// limit of 8 faces overload on work whose throughput peaks at a concurrency
// of 8 (10 ms each): ten virtual seconds take a few milliseconds, and the
// same seed always gives the same run. The agent's own work function runs
// (it doubles each item), quickly and synchronously; the Curve says how
// long it takes.
func ExampleRun() {
	double, err := parallel.Stage(parallel.Config{Limit: 8, Unordered: true, MaxBatch: 1},
		func(_ context.Context, v int) (int, error) { return 2 * v, nil })
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := sim.Run(sim.Config{
		Seed:     1,
		Capacity: []sim.Capacity{sim.Curve{Base: 10 * time.Millisecond, Knee: 8, Contention: 0.5}},
		Arrivals: sim.Flood{},
		Duration: 10 * time.Second,
	}, sim.Chain[int, int]{Stage: double})
	if err != nil {
		fmt.Println(err)
		return
	}
	st := res.Agents[0]
	fmt.Printf("%d done, %.0f a second, p99 service time %v\n", st.Done, res.Throughput, st.Service.Quantile(0.99).Round(time.Millisecond))
	// Output: 7992 done, 799 a second, p99 service time 10ms
}

// Run drives a whole chain the same way, each agent with its own capacity:
// here 100 items a second through a rate stage, a parallel stage whose work
// takes 20 ms at up to 4 at once, and a buffer that writes batches of 50 in
// 5 ms each. Items arrive 150 a second for ten virtual seconds, then the
// chain drains.
func ExampleRun_chain() {
	pace, err := rate.Stage(rate.Config[int]{Rate: 100, Burst: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	double, err := parallel.Stage(parallel.Config{Limit: 4}, func(_ context.Context, v int) (int, error) { return 2 * v, nil })
	if err != nil {
		fmt.Println(err)
		return
	}
	write, err := buffer.Stage(buffer.Config[int]{Size: 50}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	sum, last := 0, time.Duration(0)
	res, err := sim.Run(sim.Config{
		Seed:     1,
		Arrivals: sim.Steady{Rate: 150},
		Duration: 10 * time.Second,
		Drain:    true,
		Capacity: []sim.Capacity{
			nil, // the rate stage has no work
			sim.Curve{Base: 20 * time.Millisecond, Knee: 4},
			sim.Curve{Base: 5 * time.Millisecond, Knee: 1},
		},
	}, sim.Chain[int, []int]{
		Stage: compose.Pipe3(pace, double, write),
		Item:  func(n uint64) int { return int(n) },
		Sink: func(at time.Duration, batch []int) {
			for _, v := range batch {
				sum += v
			}
			last = at
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d arrived, %d posted, %d batches, sum %d, last batch at %v\n", res.Arrived, res.Posted, res.Emitted, sum, last)
	for _, st := range res.Agents {
		fmt.Printf("%s: took %d, at most %d of %d queued\n", st.Name, st.Taken, st.MaxQueued, st.Queue)
	}
	// Output:
	// 1501 arrived, 1073 posted, 22 batches, sum 1150256, last batch at 10.655s
	// rate: took 1073, at most 64 of 64 queued
	// parallel: took 1073, at most 1 of 64 queued
	// buffer: took 1073, at most 50 of 100 queued
}
