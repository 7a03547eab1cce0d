package batchwork_test

import (
	"context"
	"fmt"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/batchwork"
	"github.com/evolvekit/evolve/parallel"
)

// An Agent is how parallel and adaptive start: a state and its evolve, the
// user's work, and how a result is made and read.
func Example() {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	s, err := parallel.NewState[int, int](parallel.Config{Limit: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := batchwork.Agent[parallel.State[int, int], int, int, parallel.Result[int], parallel.Status]{
		Name: "square", State: s, Evolve: parallel.Evolve[int, int], Queue: 4,
		Work: func(_ context.Context, x int) (int, error) { return x * x, nil },
		Result: func(seq uint64, v int, err error) parallel.Result[int] {
			return parallel.Result[int]{Seq: seq, Value: v, Err: err}
		},
		Value: func(r parallel.Result[int]) (int, bool) { return r.Value, r.Err == nil },
	}
	h, err := p.New(rt, func(r parallel.Result[int]) { fmt.Println(r.Seq, r.Value) })
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for x := range 3 {
		_ = h.Post(ctx, x+1)
	}
	h.Close()
	fmt.Println("wait:", h.Wait(ctx))
	// Output:
	// 0 1
	// 1 4
	// 2 9
	// wait: <nil>
}
