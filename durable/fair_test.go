package durable_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
)

// client is the fair key of the tests' items: what comes before the '/'
// of the item's key, as in "big/17".
func client(key string) string {
	c, _, _ := strings.Cut(key, "/")
	return c
}

// clientEntries returns n entries of client c, keyed c/<i>.
func clientEntries(c string, n int) []durable.Entry[int] {
	e := make([]durable.Entry[int], n)
	for i := range e {
		e[i] = durable.Entry[int]{Key: fmt.Sprintf("%s/%d", c, i), Value: i}
	}
	return e
}

// fairRun consumes q with a chain of a parallel stage of limit 2 and a
// sink, until q is empty or, if stop > 0, the sink has seen stop items;
// it returns the keys in the order the sink saw them.
func fairRun(t *testing.T, q *durable.Queue[int], stop int) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, halt := context.WithCancel(ctx)
	defer halt()
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	var mu sync.Mutex
	var order []string
	chain, err := compose.Start(rt, mustParallel(t, parallel.Config{Limit: 2}, durable.Map(func(_ context.Context, v int) (int, error) { return v, nil })),
		durable.Sink(q, func(it durable.Item[int]) error {
			mu.Lock()
			defer mu.Unlock()
			if order = append(order, it.Key); len(order) == stop {
				halt()
			}
			return nil
		}), compose.WithDeadLetters(q.DeadLetters))
	if err != nil {
		t.Fatal(err)
	}
	if err := durable.Consume(run, q, chain, durable.WithUntilEmpty()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return order
}

// lastOf returns the position (from 1) at which the sink saw the last key
// of client c in order, and how many it saw.
func lastOf(order []string, c string) (last, n int) {
	for i, k := range order {
		if client(k) == c {
			last, n = i+1, n+1
		}
	}
	return last, n
}

// once checks that order holds each key of want once, and no other.
func once(t *testing.T, order []string, want ...[]durable.Entry[int]) {
	t.Helper()
	seen := map[string]int{}
	for _, k := range order {
		seen[k]++
	}
	total := 0
	for _, es := range want {
		total += len(es)
		for _, e := range es {
			if seen[e.Key] != 1 {
				t.Errorf("key %s reached the sink %d times, want once", e.Key, seen[e.Key])
			}
		}
	}
	if len(order) != total {
		t.Errorf("the sink saw %d items, want %d", len(order), total)
	}
}

// fairQueue opens an embedded queue in dir whose fair key is the client.
func fairQueue(t *testing.T, dir string) *durable.Queue[int] {
	t.Helper()
	q, err := durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{Key: client})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestASmallClientIsNotHeldBackByABigOne adds 2,000 items of one client
// and then 20 of another, 100:1, before the chain starts: the small
// client's items all reach the sink among the first few dozen (its share
// is every other item: 40, and the bound a quantum and an item more), and
// every item reaches it once.
func TestASmallClientIsNotHeldBackByABigOne(t *testing.T) {
	ctx := context.Background()
	q := fairQueue(t, t.TempDir())
	defer q.Close()
	big, small := clientEntries("big", 2000), clientEntries("small", 20)
	if err := q.AddMany(ctx, big); err != nil {
		t.Fatal(err)
	}
	if err := q.AddMany(ctx, small); err != nil {
		t.Fatal(err)
	}
	if n, err := q.Len(ctx); err != nil || n != len(big)+len(small) {
		t.Fatalf("Len = %d, %v; want %d", n, err, len(big)+len(small))
	}
	order := fairRun(t, q, 0)
	once(t, order, big, small)
	last, n := lastOf(order, "small")
	t.Logf("the small client's %d items reached the sink by item %d of %d", n, last, len(order))
	if limit := 2*len(small) + 8; last > limit {
		t.Errorf("the small client's last item reached the sink as item %d; want by %d (a fair share is every other item)", last, limit)
	}
	if n, err := q.Len(ctx); err != nil || n != 0 {
		t.Errorf("Len after the run = %d, %v; want 0", n, err)
	}
}

// TestAFairKeyKeepsDedupe adds an item under a key of a client, and the
// same key again, alone and with a batch: the queue holds it once, and
// the sink sees it once.
func TestAFairKeyKeepsDedupe(t *testing.T) {
	ctx := context.Background()
	q := fairQueue(t, t.TempDir())
	defer q.Close()
	a := clientEntries("acme", 5)
	if err := q.AddMany(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := q.Add(ctx, a[0].Key, 99); err != nil {
		t.Fatal(err)
	}
	if err := q.AddMany(ctx, a); err != nil {
		t.Fatal(err)
	}
	if n, err := q.Len(ctx); err != nil || n != len(a) {
		t.Fatalf("Len after adding the keys again = %d, %v; want %d", n, err, len(a))
	}
	once(t, fairRun(t, q, 0), a)
	// Consumed, the keys are still refused within the window.
	if err := q.AddMany(ctx, a); err != nil {
		t.Fatal(err)
	}
	if n, err := q.Len(ctx); err != nil || n != 0 {
		t.Errorf("Len after adding consumed keys again = %d, %v; want 0", n, err)
	}
}

// TestFairKeysSurviveARestart adds 2,000 items of a big client and 200
// of a small one, runs the chain until its sink has seen 20 items (it
// drains what it holds), closes the queue and opens it
// again on its directory: it holds what was not acknowledged, of both
// clients; the next run takes the small client's rest early again, and
// the two runs together see every item once.
func TestFairKeysSurviveARestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	q := fairQueue(t, dir)
	big, small := clientEntries("big", 2000), clientEntries("small", 200)
	if err := q.AddMany(ctx, big); err != nil {
		t.Fatal(err)
	}
	if err := q.AddMany(ctx, small); err != nil {
		t.Fatal(err)
	}
	first := fairRun(t, q, 20)
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	_, firstSmall := lastOf(first, "small")

	q = fairQueue(t, dir)
	defer q.Close()
	if n, err := q.Len(ctx); err != nil || n != len(big)+len(small)-len(first) {
		t.Fatalf("Len after opening again = %d, %v; want %d (%d seen in the first run)", n, err, len(big)+len(small)-len(first), len(first))
	}
	second := fairRun(t, q, 0)
	last, n := lastOf(second, "small")
	t.Logf("first run: %d items, %d of the small client; second: the small client's other %d by item %d of %d", len(first), firstSmall, n, last, len(second))
	if firstSmall == len(small) || n != len(small)-firstSmall {
		t.Errorf("the second run saw %d items of the small client, want %d, and some", n, len(small)-firstSmall)
	}
	if limit := 2*n + 8; last > limit {
		t.Errorf("in the second run, the small client's last item reached the sink as item %d; want by %d", last, limit)
	}
	once(t, append(first, second...), big, small)
}

// TestItemsWithAndWithoutAFairKeyShareAQueue adds items of a client and
// items whose key gives no client: both are consumed, once each.
func TestItemsWithAndWithoutAFairKeyShareAQueue(t *testing.T) {
	ctx := context.Background()
	q := fairQueue(t, t.TempDir())
	defer q.Close()
	a, none := clientEntries("acme", 50), keyed(50) // "k<i>": no '/', the client is the whole key
	for i := range none {
		none[i].Key = "/" + none[i].Key // an empty client: no fair key
	}
	if err := q.AddMany(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := q.AddMany(ctx, none); err != nil {
		t.Fatal(err)
	}
	order := fairRun(t, q, 0)
	once(t, order, a, none)
	last, _ := lastOf(order, "")
	if limit := 2*len(none) + 8; last > limit {
		t.Errorf("the items with no fair key, added last, were done by item %d; want by %d", last, limit)
	}
}

// TestFairKeysSurviveACrash adds 1,000 items of a big client and 100 of
// a small one to an embedded queue with a lease of a minute, and the
// process "dies" (durable.Crash) as its sink takes the 30th item, holding
// items of both clients in their consumers. Opened again, the queue holds
// all but the 29 acknowledged, and hands back at once, long before the
// lease ends, what the dead run held: the next run sees every other item,
// the small client's early again.
func TestFairKeysSurviveACrash(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := durable.Config{Key: client, Lease: time.Minute}
	q, err := durable.Open[int](durable.Embedded{Dir: dir}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	big, small := clientEntries("big", 1000), clientEntries("small", 100)
	if err := q.AddMany(ctx, big); err != nil {
		t.Fatal(err)
	}
	if err := q.AddMany(ctx, small); err != nil {
		t.Fatal(err)
	}
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	var acked []string
	chain, err := compose.Start(rt, mustParallel(t, parallel.Config{Limit: 2}, durable.Map(func(_ context.Context, v int) (int, error) { return v, nil })),
		durable.Sink(q, func(it durable.Item[int]) error {
			switch n := len(acked); {
			case n < 29:
				acked = append(acked, it.Key) // acknowledged once this returns
			case n == 29:
				acked = append(acked, "") // the sink's goroutine alone touches acked
				durable.Crash(q)
			}
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	run, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := durable.Consume(run, q, chain); err == nil {
		t.Fatal("Consume on a queue that crashed returned no error")
	}
	acked = acked[:29]

	if q, err = durable.Open[int](durable.Embedded{Dir: dir}, cfg); err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	want := len(big) + len(small) - len(acked)
	if n, err := q.Len(ctx); err != nil || n != want {
		t.Fatalf("Len after the crash = %d, %v; want %d", n, err, want)
	}
	// The suspects, worked on alone, are the items each client had handed
	// out: not the big client's whole backlog, added before the small
	// client's items (sequences 1 to 1,000, and 1,001 to 1,100).
	var rec struct {
		To uint64            `json:"suspects_to"`
		Of map[string]uint64 `json:"suspects_of"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "evolve-durable.crashes"))
	if err == nil {
		err = json.Unmarshal(data, &rec)
	}
	if err != nil || rec.To != 0 || len(rec.Of) != 2 {
		t.Fatalf("the record of crashes: %+v, %v; want suspects of two fair keys", rec, err)
	}
	for tok, seq := range rec.Of {
		if seq > 1000 && seq-1000 > 100 || seq <= 1000 && seq > 500 {
			t.Errorf("fair key %s: suspects up to sequence %d, far past what the dead run handed out", tok, seq)
		}
	}
	start := time.Now()
	second := fairRun(t, q, 0)
	if took := time.Since(start); took >= cfg.Lease {
		t.Errorf("the run after the crash took %v, as long as a lease: what the dead run held came back only as its lease ended", took)
	}
	last, n := lastOf(second, "small")
	t.Logf("the dead run acknowledged %d items; the next run saw %d, the small client's %d by item %d", len(acked), len(second), n, last)
	once(t, append(acked, second...), big, small)
	if limit := 2*n + 8; last > limit {
		t.Errorf("after the crash, the small client's last item reached the sink as item %d; want by %d", last, limit)
	}
}
