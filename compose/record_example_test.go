package compose_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/evolvekit/evolve/replay"
)

// A chain records to a file what its stages' evolve functions take, one
// JSON line per message with the effects evolve returned; replay.Run plays
// the file back through the same stages. The first line names the stages;
// the last line of each stage holds the status it ended with.
func ExampleWithRecording() {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	ctx := context.Background()
	// The replay needs the stage built as the recorded one was.
	stage := func() agent.Stage[string, string] {
		pace, err := rate.Stage(rate.Config[string]{Rate: 1000, Burst: 5})
		if err != nil {
			panic(err)
		}
		upper, err := parallel.Stage(parallel.Config{Limit: 2}, func(_ context.Context, w string) (string, error) {
			return strings.ToUpper(w), nil
		})
		if err != nil {
			panic(err)
		}
		return compose.Pipe2(pace, upper)
	}
	f, err := os.CreateTemp("", "chain-*.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.Remove(f.Name())
	defer f.Close()

	chain, err := compose.Start(rt, stage(), nil, compose.WithRecording(f), compose.WithName("words"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range strings.Fields("a bug report can carry a trace") {
		if err := chain.Post(ctx, w); err != nil {
			fmt.Println(err)
			return
		}
	}
	chain.Close()
	fmt.Println("wait:", chain.Wait(ctx)) // once it returns, the recording is written

	if _, err := f.Seek(0, 0); err != nil {
		fmt.Println(err)
		return
	}
	lines := bufio.NewScanner(f)
	lines.Scan()
	var header struct{ Agents []string }
	if err := json.Unmarshal(lines.Bytes(), &header); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("stages:", header.Agents)

	if _, err := f.Seek(0, 0); err != nil {
		fmt.Println(err)
		return
	}
	res, err := replay.Run(stage(), f)
	fmt.Println("replay:", err, "- messages replayed:", res.Messages > 0)
	// Output:
	// wait: <nil>
	// stages: [rate parallel]
	// replay: <nil> - messages replayed: true
}
