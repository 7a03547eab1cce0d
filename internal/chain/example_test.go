package chain_test

import (
	"context"
	"fmt"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/chain"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/testing/echo"
)

// Start runs a stage of two linked agents with the overflow gate in front
// of them; the chain takes items at its head and ends once each agent has
// drained.
func ExampleStart() {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	stage := core.Link(core.NewStage[int, echo.Status](echo.Spec(4, nil)), core.NewStage[int, echo.Status](echo.Spec(4, nil)))
	var got []int
	c, err := chain.Start(rt, stage, chain.Options{Name: "echoes", Gate: true}, func(v int) { got = append(got, v) })
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for v := 1; v <= 5; v++ {
		_ = c.Post(ctx, v)
	}
	c.Close()
	fmt.Println("wait:", c.Wait(ctx), "got:", got)
	agents, dropped, err := c.Status(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range agents {
		fmt.Print(a.Name, " ")
	}
	fmt.Println("dropped:", dropped)
	fmt.Printf("bound: %d, the last saw: %+v\n", c.Bound(), agents[len(agents)-1].Detail)
	// Output:
	// wait: <nil> got: [1 2 3 4 5]
	// overflow echo echo dropped: 0
	// bound: 12, the last saw: {Seen:5 Running:0 Ticks:0}
}
