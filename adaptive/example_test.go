package adaptive_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/sim"
)

// An adaptive agent is a parallel agent whose limit its controller chooses
// between Min and Max as work completes. Results come out in input order.
func Example() {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())

	upper := func(_ context.Context, s string) (string, error) { return strings.ToUpper(s), nil }
	show := func(r parallel.Result[string]) { fmt.Println(r.Seq, r.Value) }
	a, err := adaptive.New(rt, adaptive.Config{Min: 1, Max: 8}, upper, show)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for _, s := range []string{"ho", "ho", "ho"} {
		if err := a.Post(ctx, s); err != nil {
			fmt.Println(err)
		}
	}
	a.Close()
	fmt.Println("wait:", a.Wait(ctx))
	st, _ := a.Status(ctx)
	fmt.Println("controller:", st.Controller, "limit within bounds:", st.Limit >= st.Min && st.Limit <= st.Max)
	// Output:
	// 0 HO
	// 1 HO
	// 2 HO
	// wait: <nil>
	// controller: hill limit within bounds: true
}

// A Stage runs in the simulator too: its evolve is a pure function, so
// package sim can run it in virtual time. Here work takes 10 ms and its
// throughput peaks at 8 in flight; under overload the agent starts at a
// limit of 1 and finds 8 (800 items a second) within the first second,
// then holds it, probing a neighbour now and then.
func ExampleStage() {
	stage, err := adaptive.Stage(adaptive.Config{Max: 64, Unordered: true, Seed: 1},
		func(_ context.Context, v int) (int, error) { return v, nil })
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := sim.Run(sim.Config{
		Seed:     1,
		Capacity: []sim.Capacity{sim.Curve{Base: 10 * time.Millisecond, Knee: 8, Contention: 0.5}},
		Arrivals: sim.Flood{},
		Duration: 5 * time.Second,
		Every:    time.Second,
	}, sim.Chain[int, int]{
		Stage: stage,
		Limit: func(status any) int { return status.(adaptive.Status).Limit },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, smp := range res.Trace {
		fmt.Printf("%v: limit %d, %d done\n", smp.At, smp.Limit, smp.Done)
	}
	// Output:
	// 0s: limit 1, 0 done
	// 1s: limit 8, 666 done
	// 2s: limit 8, 1460 done
	// 3s: limit 8, 2254 done
	// 4s: limit 9, 3043 done
	// 5s: limit 8, 3834 done
}
