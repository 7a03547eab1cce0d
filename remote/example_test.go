package remote_test

import (
	"context"
	"fmt"
	"log"
	"strings"

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

// A master shares its workers fairly among the clients whose orders it
// runs: an order of "acme/17" is acme's, and acme, weighing 2, gets twice
// the workers' time of any other client while both have orders waiting.
// Orders start in the order they came, client by client, and go out as
// they end (a Key needs Unordered).
func ExampleConfig_key() {
	node, err := remote.Listen(remote.NodeConfig{Addr: "127.0.0.1:7070"})
	if err != nil {
		log.Fatal(err)
	}
	defer node.Close()
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())

	client := func(order string) string { c, _, _ := strings.Cut(order, "/"); return c }
	h, err := remote.New[string, string](rt, remote.Config[string]{Node: node, Name: "orders",
		Key: client, Weights: map[string]int{"acme": 2}, Unordered: true},
		func(r remote.Result[string]) { fmt.Println(r.Seq, r.Value, r.Err) })
	if err != nil {
		log.Fatal(err)
	}
	for _, order := range []string{"acme/1", "acme/2", "acme/3", "globex/1"} {
		if err := h.Post(context.Background(), order); err != nil {
			log.Fatal(err)
		}
	}
	h.Close()
	if err := h.Wait(context.Background()); err != nil {
		log.Fatal(err)
	}
	st, _ := h.Status(context.Background())
	fmt.Println(st.Keys, st.Started)
}
