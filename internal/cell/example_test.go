package cell_test

import (
	"context"
	"fmt"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/cell"
	"github.com/evolvekit/evolve/internal/testing/echo"
)

// Start runs a Spec on a runtime as its Wiring says: here on its own, its
// values delivered, a round's at a time, to Deliver, until Close ends it.
func ExampleStart() {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	var got []int
	deliver := func(values []int) (int, error) { got = append(got, values...); return 0, nil }
	h, err := cell.Start[int, echo.Status](rt, echo.Spec(4, nil), cell.Wiring[int]{Deliver: deliver})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for _, v := range []int{7, 8, 9} {
		_ = h.Post(ctx, v)
	}
	h.Close()
	fmt.Println("wait:", h.Wait(ctx))
	st, err := h.Status(ctx)
	fmt.Println("delivered:", got, "seen:", st.Seen, err)
	// Output:
	// wait: <nil>
	// delivered: [7 8 9] seen: 3 <nil>
}
