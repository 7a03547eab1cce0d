package durable_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
)

// Words go into a durable queue in a directory; a chain upper-cases them
// four at a time and writes them in lines of three, and each word is
// acknowledged once its line is written. Run again on the same directory,
// the chain would find only what was not acknowledged.
func Example() {
	dir, err := os.MkdirTemp("", "durable-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	q, err := durable.Open[string](durable.Embedded{Dir: dir}, durable.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer q.Close()
	var entries []durable.Entry[string]
	for i, w := range strings.Fields("the quick brown fox jumps over the lazy dog") {
		entries = append(entries, durable.Entry[string]{Key: fmt.Sprint(i), Value: w})
	}
	if err := q.AddMany(ctx, entries); err != nil {
		fmt.Println(err)
		return
	}

	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	upper, err := parallel.Stage(parallel.Config{Limit: 4}, durable.Map(func(_ context.Context, w string) (string, error) {
		return strings.ToUpper(w), nil
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	lines, err := buffer.Stage(buffer.Config[durable.Item[string]]{Size: 3}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	var written []string
	chain, err := compose.Start(rt, compose.Pipe2(upper, lines), durable.Batches(q, func(line []durable.Item[string]) error {
		words := make([]string, len(line))
		for i, it := range line {
			words[i] = it.Value
		}
		written = append(written, strings.Join(words, " "))
		return nil
	}), compose.WithDeadLetters(q.DeadLetters))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("consume:", durable.Consume(ctx, q, chain, durable.WithUntilEmpty()))
	slices.Sort(written)
	for _, l := range written {
		fmt.Println(l)
	}
	n, err := q.Len(ctx)
	fmt.Println("left:", n, err)
	// Output:
	// consume: <nil>
	// FOX JUMPS OVER
	// THE LAZY DOG
	// THE QUICK BROWN
	// left: 0 <nil>
}

// A program picks where its queue lives at run time: embedded in a
// directory by default, on the NATS servers at a URL when one is given.
// Everything after Open is the same for both.
func ExampleStore() {
	dir, err := os.MkdirTemp("", "durable-store")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	url := "" // a flag, say: -nats nats://a:4222,nats://b:4222,nats://c:4222

	var store durable.Store = durable.Embedded{Dir: dir}
	if url != "" {
		store = durable.Server{URL: url, Replicas: 3}
	}
	q, err := durable.Open[string](store, durable.Config{Name: "orders"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer q.Close()
	fmt.Printf("queue %s, reached at %q\n", q.Name(), q.URL())
	// Output:
	// queue orders, reached at ""
}

// A big client's 30 orders and a small client's 3 go into a queue whose
// fair key is the client, named before the '/' of each order's key; the
// small client's orders, added last, are done among the first few, not
// after the big client's.
func ExampleConfig_fairKeys() {
	dir, err := os.MkdirTemp("", "durable-fair")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	client := func(key string) string {
		c, _, _ := strings.Cut(key, "/")
		return c
	}
	q, err := durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{Key: client})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer q.Close()
	var orders []durable.Entry[int]
	for i := range 30 {
		orders = append(orders, durable.Entry[int]{Key: fmt.Sprint("big/", i), Value: i})
	}
	for i := range 3 {
		orders = append(orders, durable.Entry[int]{Key: fmt.Sprint("small/", i), Value: i})
	}
	if err := q.AddMany(ctx, orders); err != nil {
		fmt.Println(err)
		return
	}

	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	work, err := parallel.Stage(parallel.Config{Limit: 1}, durable.Map(func(_ context.Context, v int) (int, error) { return v, nil }))
	if err != nil {
		fmt.Println(err)
		return
	}
	done, smallBy := 0, 0
	chain, err := compose.Start(rt, work, durable.Sink(q, func(it durable.Item[int]) error {
		if done++; client(it.Key) == "small" {
			smallBy = done
		}
		return nil
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("consume:", durable.Consume(ctx, q, chain, durable.WithUntilEmpty()))
	fmt.Println("done:", done)
	fmt.Println("the small client's orders among the first 8:", smallBy <= 8)
	// Output:
	// consume: <nil>
	// done: 33
	// the small client's orders among the first 8: true
}
