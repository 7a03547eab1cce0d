package durable_test

import (
	"context"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
)

// slowRun adds entries to an embedded queue of cfg whose lease is a
// second, and runs them through a chain of one slot, 15 ms an item: of
// 200 items, the last wait in the process two leases and more before
// their work starts. It returns the keys in the order the sink saw them,
// once the queue is empty, and checks that no item went to the dead
// letters.
//
// The process renews a lease a third of it after it was last renewed,
// looking every sixth: a lease runs out only if the renewals do not reach
// the server for half of it. On a loaded machine that is not rare for a
// short lease: the server, in this process, answered acknowledgements 70
// to 90 ms late several times in a row, and a renewal waited 200 ms to be
// sent, so a lease of 150 ms (75 ms to spare) ran out one run in sixty,
// every item the chain held handed out twice. A second leaves 500 ms.
func slowRun(t *testing.T, cfg durable.Config, entries []durable.Entry[int]) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg.Lease = time.Second
	q, err := durable.Open[int](durable.Embedded{Dir: t.TempDir()}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if err := q.AddMany(ctx, entries); err != nil {
		t.Fatal(err)
	}
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	var order []string
	chain, err := compose.Start(rt, mustParallel(t, parallel.Config{Limit: 1}, durable.Map(func(ctx context.Context, v int) (int, error) {
		select { // the work an item takes
		case <-time.After(15 * time.Millisecond):
		case <-ctx.Done():
		}
		return v, nil
	})), durable.Sink(q, func(it durable.Item[int]) error {
		order = append(order, it.Key) // the sink's goroutine alone
		return nil
	}), compose.WithDeadLetters(q.DeadLetters))
	if err != nil {
		t.Fatal(err)
	}
	if err := durable.Consume(ctx, q, chain, durable.WithUntilEmpty()); err != nil {
		t.Fatal(err)
	}
	if n, err := q.DeadLen(ctx); err != nil || n != 0 {
		t.Errorf("DeadLen = %d, %v; want 0", n, err)
	}
	return order
}

// TestItemsWaitingToBePostedKeepTheirLease runs 200 items without fair
// keys, fetched at once (the default fetch size is larger), through one
// slot: the last waits two leases to be posted, and none is handed out
// twice.
func TestItemsWaitingToBePostedKeepTheirLease(t *testing.T) {
	items := clientEntries("a", 200)
	order := slowRun(t, durable.Config{}, items)
	once(t, order, items)
}

// TestItemsWaitingInLinesKeepTheirLease runs two clients' 100 items each
// with fair keys: items wait in their key's line far longer than a lease,
// and still none is handed out twice.
func TestItemsWaitingInLinesKeepTheirLease(t *testing.T) {
	a, b := clientEntries("a", 100), clientEntries("b", 100)
	order := slowRun(t, durable.Config{Key: client}, append(a, b...))
	once(t, order, a, b)
}
