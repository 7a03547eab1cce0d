package durable_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
)

// TestChainAcknowledgesEveryItem runs rate -> parallel -> buffer on an
// embedded queue of 2,000 items until it is empty: the sink sees every
// key once, and the queue ends empty.
func TestChainAcknowledgesEveryItem(t *testing.T) {
	ctx := context.Background()
	q, err := durable.Open[int](durable.Embedded{Dir: t.TempDir()}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	const n = 2000
	entries := keyed(n)
	if err := q.AddMany(ctx, entries); err != nil {
		t.Fatal(err)
	}
	// Adding the same keys again adds nothing.
	if err := q.AddMany(ctx, entries[:100]); err != nil {
		t.Fatal(err)
	}
	if got, err := q.Len(ctx); err != nil || got != n {
		t.Fatalf("Len = %d, %v; want %d", got, err, n)
	}

	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	limit, err := rate.Stage(rate.Config[durable.Item[int]]{Rate: 1e6, Burst: 1000})
	if err != nil {
		t.Fatal(err)
	}
	double, err := parallel.Stage(parallel.Config{Limit: 4}, durable.Map(func(_ context.Context, v int) (int, error) { return 2 * v, nil }))
	if err != nil {
		t.Fatal(err)
	}
	batches, err := buffer.Stage(buffer.Config[durable.Item[int]]{Size: 100}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]int{}
	chain, err := compose.Start(rt, compose.Pipe3(limit, double, batches), durable.Batches(q, func(b []durable.Item[int]) error {
		mu.Lock()
		defer mu.Unlock()
		for _, it := range b {
			seen[it.Key]++
		}
		return nil
	}), compose.WithDeadLetters(q.DeadLetters))
	if err != nil {
		t.Fatal(err)
	}
	run, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := durable.Consume(run, q, chain, durable.WithUntilEmpty()); err != nil {
		t.Fatal(err)
	}
	if len(seen) != n {
		t.Errorf("the sink saw %d keys; want %d", len(seen), n)
	}
	for k, c := range seen {
		if c != 1 {
			t.Errorf("key %s reached the sink %d times", k, c)
		}
	}
	if got, err := q.Len(ctx); err != nil || got != 0 {
		t.Errorf("Len after the run = %d, %v; want 0", got, err)
	}
}

// TestConsumeRefusesADroppingChain: a chain whose overflow policy drops
// items would lose durable ones, so Consume refuses it.
func TestConsumeRefusesADroppingChain(t *testing.T) {
	ctx := context.Background()
	q, err := durable.Open[int](durable.Embedded{Dir: t.TempDir()}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	for _, o := range []compose.Overflow{compose.DropNewest, compose.DropOldest, compose.Fail} {
		limit, err := rate.Stage(rate.Config[durable.Item[int]]{Rate: 1e6, Burst: 1000})
		if err != nil {
			t.Fatal(err)
		}
		chain, err := compose.Start(rt, limit, durable.Sink(q, func(durable.Item[int]) error { return nil }), compose.WithOverflow(o))
		if err != nil {
			t.Fatal(err)
		}
		err = durable.Consume(ctx, q, chain, durable.WithUntilEmpty())
		if !errors.Is(err, durable.ErrConfig) || !strings.Contains(err.Error(), o.String()) {
			t.Errorf("Consume on a chain with overflow %s = %v; want an ErrConfig naming the policy", o, err)
		}
		chain.Close()
		if err := chain.Wait(ctx); err != nil {
			t.Error(err)
		}
	}
}

// keyed returns n entries keyed "k<i>", of values i.
func keyed(n int) []durable.Entry[int] {
	e := make([]durable.Entry[int], n)
	for i := range e {
		e[i] = durable.Entry[int]{Key: fmt.Sprint("k", i), Value: i}
	}
	return e
}
