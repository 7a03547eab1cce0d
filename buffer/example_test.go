package buffer_test

import (
	"context"
	"fmt"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
)

// A buffer of three: seven items make two full batches, and Close flushes
// the last one. Each batch is flushed, then handed to the sink.
func Example() {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())

	flush := func(_ context.Context, batch []int) error {
		fmt.Println("insert", len(batch), "rows")
		return nil
	}
	sink := func(batch []int) { fmt.Println("batch", batch) }
	b, err := buffer.New(rt, buffer.Config[int]{Size: 3}, flush, sink)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for i := 1; i <= 7; i++ {
		if err := b.Post(ctx, i); err != nil {
			fmt.Println(err)
		}
	}
	b.Close()
	fmt.Println("wait:", b.Wait(ctx))
	st, _ := b.Status(ctx)
	fmt.Println("flushed:", st.Flushed, "batches,", st.Done, "items")
	// Output:
	// insert 3 rows
	// batch [1 2 3]
	// insert 3 rows
	// batch [4 5 6]
	// insert 1 rows
	// batch [7]
	// wait: <nil>
	// flushed: 3 batches, 7 items
}

// Batches cut by weight: each message weighs its length in bytes, and a
// batch weighs at most 10. A message that would take the open batch over
// cuts it first; one heavier than 10 goes out alone.
func Example_weight() {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())

	cfg := buffer.Config[string]{
		MaxWeight: 10,
		Weight:    func(s string) int { return len(s) },
	}
	sink := func(batch []string) { fmt.Printf("%q\n", batch) }
	b, err := buffer.New(rt, cfg, nil, sink) // no flush: batches go straight to sink
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for _, s := range []string{"hello", "world", "hi", "there", "a rather long one", "bye"} {
		if err := b.Post(ctx, s); err != nil {
			fmt.Println(err)
		}
	}
	b.Close()
	fmt.Println("wait:", b.Wait(ctx))
	// Output:
	// ["hello" "world"]
	// ["hi" "there"]
	// ["a rather long one"]
	// ["bye"]
	// wait: <nil>
}
