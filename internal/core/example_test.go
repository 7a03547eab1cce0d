package core_test

import (
	"context"
	"fmt"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/testing/echo"
)

// Spawn runs a Spec on a runtime: the agent takes items, emits what its
// evolve asks for to the sink, and ends on Close, leaving its final status.
func ExampleSpawn() {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	h, err := core.Spawn[int, echo.Status](rt, echo.Spec(4, nil), func(v int) { fmt.Println("out:", v) })
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for _, v := range []int{7, 8} {
		_ = h.Post(ctx, v)
	}
	h.Close()
	fmt.Println("wait:", h.Wait(ctx))
	st, err := h.Status(ctx)
	fmt.Println("seen:", st.Seen, err)
	// Output:
	// out: 7
	// out: 8
	// wait: <nil>
	// seen: 2 <nil>
}
