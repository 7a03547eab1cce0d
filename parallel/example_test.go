package parallel_test

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/parallel"
)

// A parallel agent runs work on at most Limit items at once and hands the
// results to its sink in input order. A failed item is passed on like any
// other, and Wait reports it once everything is done.
func Example() {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())

	parse := func(_ context.Context, s string) (int, error) { return strconv.Atoi(s) }
	show := func(r parallel.Result[int]) {
		if r.Err != nil {
			fmt.Printf("item %d: %v\n", r.Seq, r.Err)
			return
		}
		fmt.Printf("item %d: %d\n", r.Seq, r.Value)
	}
	p, err := parallel.New(rt, parallel.Config{Limit: 2}, parse, show)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for _, s := range []string{"1", "22", "x", "4", "55"} {
		if err := p.Post(ctx, s); err != nil {
			fmt.Println(err)
		}
	}
	p.Close()
	fmt.Println("wait:", p.Wait(ctx))
	// Output:
	// item 0: 1
	// item 1: 22
	// item 2: strconv.Atoi: parsing "x": invalid syntax
	// item 3: 4
	// item 4: 55
	// wait: strconv.Atoi: parsing "x": invalid syntax
}

// Evolve is a plain function: a test drives it with messages and reads the
// effects it asks for. Here two of three items start, each as a batch of
// one; the second finishes first, so its result is held while the third
// starts in its place, and comes out right after the first.
func ExampleEvolve() {
	s, err := parallel.NewState[string, int](parallel.Config{Limit: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	tr := agenttest.Run(parallel.Evolve[string, int], s,
		agenttest.Step{Msg: agent.Pull{N: agent.Unbounded}},
		agenttest.Step{Msg: agent.Input[string]{Items: []string{"a", "b", "c"}}},
		agenttest.Step{At: time.Second, Msg: agent.Done[[]parallel.Result[int]]{ID: 1, Result: []parallel.Result[int]{{Seq: 1, Value: 20}}}},
		agenttest.Step{At: 2 * time.Second, Msg: agent.Done[[]parallel.Result[int]]{ID: 0, Result: []parallel.Result[int]{{Seq: 0, Value: 10}}}},
	)
	for _, step := range tr[1:] {
		fmt.Printf("%+v\n", step.Effects)
	}
	// Output:
	// [{ID:0 Work:[a]} {ID:1 Work:[b]} {N:2}]
	// [{ID:2 Work:[c]} {N:1}]
	// [{Values:[{Seq:0 Value:10 Err:<nil>} {Seq:1 Value:20 Err:<nil>}]}]
}

// SetLimit changes the limit of a running agent; Status shows it.
func ExampleSetLimit() {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())

	square := func(_ context.Context, n int) (int, error) { return n * n, nil }
	p, err := parallel.New(rt, parallel.Config{Limit: 1}, square, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(parallel.SetLimit(p, 8))
	st, _ := p.Status(context.Background())
	fmt.Println("limit:", st.Limit)
	fmt.Println(parallel.SetLimit(p, 0))
	// Output:
	// <nil>
	// limit: 8
	// parallel: limit must be at least 1, got 0
}
