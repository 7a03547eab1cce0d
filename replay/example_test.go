package replay_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/evolvekit/evolve/replay"
)

// squares is a rate -> parallel -> buffer chain that squares ints and
// batches them by ten. A replay needs the stage built as the recorded one
// was, so a program builds it in one place.
func squares() (agent.Stage[int, []int], error) {
	pace, err := rate.Stage(rate.Config[int]{Rate: 10000, Burst: 10})
	if err != nil {
		return agent.Stage[int, []int]{}, err
	}
	square, err := parallel.Stage(parallel.Config{Limit: 4}, func(_ context.Context, v int) (int, error) { return v * v, nil })
	if err != nil {
		return agent.Stage[int, []int]{}, err
	}
	batch, err := buffer.Stage(buffer.Config[int]{Size: 10}, nil)
	if err != nil {
		return agent.Stage[int, []int]{}, err
	}
	return compose.Pipe3(pace, square, batch), nil
}

// A chain started with compose.WithRecording writes down every message its
// stages' evolve functions take; replay.Run feeds them to fresh agents of the
// same stage and checks that each gives the same effects, and ends with
// the same status. A bug report can carry the recording: whoever reads it
// replays the run, step by step, without its goroutines, clock or work.
func Example() {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	ctx := context.Background()
	stage, err := squares()
	if err != nil {
		fmt.Println(err)
		return
	}
	var recording bytes.Buffer // a file, in a program
	sum := 0
	chain, err := compose.Start(rt, stage, func(b []int) {
		for _, v := range b {
			sum += v
		}
	}, compose.WithRecording(&recording))
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range 100 {
		if err := chain.Post(ctx, i); err != nil {
			fmt.Println(err)
			return
		}
	}
	chain.Close()
	fmt.Println("wait:", chain.Wait(ctx), "sum:", sum)

	// Later, elsewhere: the same stage, the recording.
	stage, err = squares()
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := replay.Run(stage, &recording)
	if err != nil {
		fmt.Println(err) // a *replay.DivergenceError names the agent, the step and the difference
		return
	}
	var names []string
	for _, a := range res.Agents {
		names = append(names, a.Name)
	}
	fmt.Println("replayed:", strings.Join(names, ", "))
	st := res.Agents[1].Status.(parallel.Status)
	fmt.Printf("parallel ended with %d done, %d emitted\n", st.Done, st.Emitted)
	// Output:
	// wait: <nil> sum: 328350
	// replayed: rate, parallel, buffer
	// parallel ended with 100 done, 100 emitted
}
