package sim_test

import (
	"context"
	"fmt"
	"time"

	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/sim"
)

// Sharing serves work by processor sharing. Here, past a knee of 1, the
// pieces in flight share the capacity: two items arrive 5ms apart, and the
// first, alone for 5ms, slows down when the second starts, and the second
// speeds up when the first is done. A Curve alone would have fixed each
// service time at its start: 10ms, then 20ms.
func ExampleSharing() {
	work, err := parallel.Stage(parallel.Config{Limit: 2, MaxBatch: 1, Unordered: true},
		func(_ context.Context, v int) (int, error) { return v, nil })
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = sim.Run(sim.Config{
		Capacity: []sim.Capacity{sim.Sharing{Capacity: sim.Curve{Base: 10 * time.Millisecond, Knee: 1}}},
		Arrivals: sim.Bursts{Every: 5 * time.Millisecond, Size: 1},
		Duration: 6 * time.Millisecond,
		Drain:    true,
	}, sim.Chain[int, int]{
		Stage: work,
		Item:  func(n uint64) int { return int(n) },
		Sink:  func(at time.Duration, v int) { fmt.Println("item", v, "done at", at) },
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// item 0 done at 15ms
	// item 1 done at 20ms
}
