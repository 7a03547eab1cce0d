package rate_test

import (
	"context"
	"fmt"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/rate"
)

// A rate agent hands the values posted to it to its sink, in order, no
// faster than its bucket allows. Here the bucket holds 10 tokens and refills
// at 1000 per second, so the 5 values pass at once.
func Example() {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())

	a, err := rate.New(rt, rate.Config[string]{Rate: 1000, Burst: 10}, func(s string) {
		fmt.Println("out:", s)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for _, s := range []string{"a", "b", "c", "d", "e"} {
		if err := a.Post(ctx, s); err != nil {
			fmt.Println(err)
		}
	}
	a.Close()
	fmt.Println("wait:", a.Wait(ctx))
	st, _ := a.Status(ctx)
	fmt.Println("passed:", st.Done)
	// Output:
	// out: a
	// out: b
	// out: c
	// out: d
	// out: e
	// wait: <nil>
	// passed: 5
}

// Evolve is a pure function: a test feeds it messages at made-up instants
// and reads the effects, with no runtime and no sleeping. A bucket of 2
// tokens refilling at 2 per second lets 2 items through at once and asks for
// a timer to the instant the third one's token is due.
func ExampleEvolve() {
	s, err := rate.NewState(rate.Config[string]{Rate: 2, Burst: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	items := []rate.Item[string]{{Value: "a"}, {Value: "b"}, {Value: "c"}}
	traces := agenttest.Run(rate.Evolve[string], s,
		agenttest.Step{At: 0, Msg: agent.Pull{N: agent.Unbounded}},
		agenttest.Step{At: 0, Msg: agent.Input[rate.Item[string]]{Items: items}},
		agenttest.Step{At: 500 * time.Millisecond, Msg: agent.Tick{Tag: 1}},
	)
	for i, tr := range traces[1:] {
		fmt.Printf("step %d:", i+1)
		for _, e := range tr.Effects {
			fmt.Printf(" %+v", e)
		}
		fmt.Println()
	}
	// Output:
	// step 1: {Values:[a b]} {N:2} {Tag:1 Delay:500ms}
	// step 2: {Values:[c]} {N:1}
}
