package durable_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
)

// TestReopenedQueueHandsBackAtOnce: a process that dies holding items
// (its server with it) leaves them delivered and unacknowledged; the
// embedded queue opened again on the same directory hands them out at
// once, not after a lease, and never one that was acknowledged.
func TestReopenedQueueHandsBackAtOnce(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const lease = time.Minute // far longer than the test may take
	q, err := durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{Lease: lease})
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	entries := keyed(n)
	if err := q.AddMany(ctx, entries); err != nil {
		t.Fatal(err)
	}
	// A chain that acknowledges the first 100 items and holds the rest
	// until the process "dies".
	rt := agent.NewRuntime()
	hold := make(chan struct{})
	var mu sync.Mutex
	acked := map[string]bool{}
	work, err := parallel.Stage(parallel.Config{Limit: 400, Unordered: true, MaxBatch: 1}, durable.Map(func(ctx context.Context, v int) (int, error) {
		if v >= 100 {
			select {
			case <-hold:
			case <-ctx.Done():
			}
		}
		return v, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	chain, err := compose.Start(rt, work, durable.Sink(q, func(it durable.Item[int]) error {
		mu.Lock()
		defer mu.Unlock()
		if it.Value < 100 {
			acked[it.Key] = true
			return nil
		}
		return fmt.Errorf("the process is dying")
	}))
	if err != nil {
		t.Fatal(err)
	}
	run, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- durable.Consume(run, q, chain) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		a := len(acked)
		mu.Unlock()
		if a == 100 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of the first 100 items were acknowledged", a)
		}
		time.Sleep(time.Millisecond)
	}
	// Let the acknowledgements reach the server, then die holding the rest.
	for {
		if n, err := q.Len(ctx); err == nil && n == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the acknowledgements did not reach the queue")
		}
		time.Sleep(time.Millisecond)
	}
	durable.Crash(q)
	cancel()
	close(hold)
	<-done
	_ = rt.Shutdown(ctx)

	start := time.Now()
	q2, err := durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{Lease: lease})
	if err != nil {
		t.Fatal(err)
	}
	defer q2.Close()
	rt2 := agent.NewRuntime()
	defer rt2.Shutdown(ctx)
	seen := map[string]bool{}
	chain2, err := compose.Start(rt2, work, durable.Sink(q2, func(it durable.Item[int]) error {
		seen[it.Key] = true
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	run2, cancel2 := context.WithTimeout(ctx, lease/2)
	defer cancel2()
	if err := durable.Consume(run2, q2, chain2, durable.WithUntilEmpty()); err != nil {
		t.Fatalf("Consume after the crash: %v", err)
	}
	took := time.Since(start)
	if len(seen) != 200 {
		t.Errorf("after the crash the chain got %d items; want the 200 held", len(seen))
	}
	for k := range seen {
		if acked[k] {
			t.Errorf("item %s was acknowledged before the crash and handed out again", k)
		}
	}
	t.Logf("the 200 items held by the dead process were done %v after the queue opened again (lease %v)", took.Round(time.Millisecond), lease)
}
