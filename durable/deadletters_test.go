package durable_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
)

// deadChain runs a parallel stage that fails the items whose value is a
// multiple of 10 on a queue of n items, with the dead-letter sink given,
// until the queue is empty, and returns the keys the sink saw.
func deadChain(t *testing.T, q *durable.Queue[int], n int, dead func(*durable.Queue[int]) func(agent.DeadLetter)) map[string]int {
	t.Helper()
	ctx := context.Background()
	entries := keyed(n)
	if err := q.AddMany(ctx, entries); err != nil {
		t.Fatal(err)
	}
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	work, err := parallel.Stage(parallel.Config{Limit: 4}, durable.Map(func(_ context.Context, v int) (int, error) {
		if v%10 == 0 {
			return 0, fmt.Errorf("%d is cursed", v)
		}
		return v, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]int{}
	chain, err := compose.Start(rt, work, durable.Sink(q, func(it durable.Item[int]) error {
		mu.Lock()
		defer mu.Unlock()
		seen[it.Key]++
		return nil
	}), compose.WithDeadLetters(dead(q)))
	if err != nil {
		t.Fatal(err)
	}
	run, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	err = durable.Consume(run, q, chain, durable.WithUntilEmpty())
	var dl *agent.DeadLettersError
	if err != nil && !errors.As(err, &dl) {
		t.Fatalf("Consume: %v", err)
	}
	return seen
}

// TestFailedItemsGoToTheDeadLetters: items a chain fails for good go to
// the queue's dead letters, are acknowledged, and leave the queue.
func TestFailedItemsGoToTheDeadLetters(t *testing.T) {
	ctx := context.Background()
	q, err := durable.Open[int](durable.Embedded{Dir: t.TempDir()}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	seen := deadChain(t, q, 200, func(q *durable.Queue[int]) func(agent.DeadLetter) { return q.DeadLetters })
	if len(seen) != 180 {
		t.Errorf("the sink saw %d items; want 180", len(seen))
	}
	if n, err := q.Len(ctx); err != nil || n != 0 {
		t.Errorf("Len = %d, %v; want 0", n, err)
	}
	if n, err := q.DeadLen(ctx); err != nil || n != 20 {
		t.Errorf("DeadLen = %d, %v; want 20", n, err)
	}
}

// TestADeadLetterSinkOfTheChainsOwn: with a dead-letter sink of the
// user's own, the items it takes are acknowledged and do not go to the
// queue's dead letters; those it fails do.
func TestADeadLetterSinkOfTheChainsOwn(t *testing.T) {
	ctx := context.Background()
	q, err := durable.Open[int](durable.Embedded{Dir: t.TempDir()}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var mu sync.Mutex
	var mine []string
	seen := deadChain(t, q, 200, func(q *durable.Queue[int]) func(agent.DeadLetter) {
		return durable.DeadLetterSink(q, func(d agent.DeadLetter) error {
			it := d.Item.(durable.Item[int])
			if it.Value == 50 {
				return errors.New("the dead-letter table is full")
			}
			mu.Lock()
			defer mu.Unlock()
			mine = append(mine, it.Key)
			return nil
		})
	})
	if len(seen) != 180 || len(mine) != 19 {
		t.Errorf("the sink saw %d items and the chain's dead letters %d; want 180 and 19", len(seen), len(mine))
	}
	if n, err := q.Len(ctx); err != nil || n != 0 {
		t.Errorf("Len = %d, %v; want 0", n, err)
	}
	if n, err := q.DeadLen(ctx); err != nil || n != 1 {
		t.Errorf("DeadLen = %d, %v; want 1: the dead letter the chain's sink failed", n, err)
	}
}

// TestLeasesAreRenewedWhileTheChainHoldsItems: with a lease of 300 ms and
// a sink that takes a second a batch, no item is handed out twice: the
// process renews the lease of what it holds.
func TestLeasesAreRenewedWhileTheChainHoldsItems(t *testing.T) {
	ctx := context.Background()
	q, err := durable.Open[int](durable.Embedded{Dir: t.TempDir()}, durable.Config{Lease: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	const n = 40
	entries := keyed(n)
	if err := q.AddMany(ctx, entries); err != nil {
		t.Fatal(err)
	}
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	slow, err := parallel.Stage(parallel.Config{Limit: 20}, durable.Map(func(ctx context.Context, v int) (int, error) {
		// The work itself takes over three leases.
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
		}
		return v, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]int{}
	chain, err := compose.Start(rt, slow, durable.Sink(q, func(it durable.Item[int]) error {
		mu.Lock()
		defer mu.Unlock()
		seen[it.Key]++
		return nil
	}))
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
			t.Errorf("key %s reached the sink %d times: its lease ran out while the chain held it", k, c)
		}
	}
}
