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
	b, err := buffer.New(rt, buffer.Config{Size: 3}, flush, sink)
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
	// Output:
	// insert 3 rows
	// batch [1 2 3]
	// insert 3 rows
	// batch [4 5 6]
	// insert 1 rows
	// batch [7]
	// wait: <nil>
}
