package sim_test

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/sim"
)

// Run drives an agent's evolve function in virtual time. Here a parallel
// agent with a limit of 8 faces overload on work whose throughput peaks at a
// concurrency of 8 (10 ms each): ten virtual seconds take a few milliseconds,
// and the same seed always gives the same run. The simulator stands in for
// the work: a batch's results come back after the service time the Curve
// gives, one per item.
func ExampleRun() {
	s, err := parallel.NewState[int, int](parallel.Config{Limit: 8, Unordered: true, MaxBatch: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := sim.Run(sim.Config{
		Seed:     1,
		Capacity: sim.Curve{Base: 10 * time.Millisecond, Knee: 8, Contention: 0.5},
		Arrivals: sim.Flood{},
		Duration: 10 * time.Second,
	}, sim.Agent[parallel.State[int, int], int, []int, []parallel.Result[int], parallel.Result[int]]{
		State:  s,
		Evolve: parallel.Evolve[int, int],
		Work: func(items []int) ([]parallel.Result[int], error) {
			return make([]parallel.Result[int], len(items)), nil
		},
		Queue: 64,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d done, %.0f a second, p99 service time %v\n", res.Done, res.Throughput(), res.Service.Quantile(0.99).Round(time.Millisecond))
	// Output: 7992 done, 799 a second, p99 service time 10ms
}
