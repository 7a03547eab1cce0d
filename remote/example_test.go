package remote_test

import (
	"context"
	"fmt"
	"log"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote"
)

// A master doubles numbers on whatever workers register with it. It runs
// until its items are done; workers that join it, in this process or others,
// pull them.
func Example() {
	node, err := remote.Listen(remote.NodeConfig{Addr: "127.0.0.1:7070"})
	if err != nil {
		log.Fatal(err)
	}
	defer node.Close()
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())

	h, err := remote.New[int, int](rt, remote.Config[int]{Node: node, Name: "double"},
		func(r remote.Result[int]) { fmt.Println(r.Seq, r.Value, r.Err) })
	if err != nil {
		log.Fatal(err)
	}
	for i := range 100 {
		if err := h.Post(context.Background(), i); err != nil {
			log.Fatal(err)
		}
	}
	h.Close()
	if err := h.Wait(context.Background()); err != nil {
		log.Fatal(err)
	}
}

// A worker process works for the master above with 8 slots until the stage
// finishes.
func ExampleWork() {
	err := remote.Work(context.Background(), remote.WorkerConfig{Master: "127.0.0.1:7070", Stage: "double", Slots: 8},
		func(ctx context.Context, v int) (int, error) { return 2 * v, nil })
	if err != nil {
		log.Fatal(err)
	}
}
