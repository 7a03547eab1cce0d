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
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
	"github.com/nats-io/nats.go"
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
// queue's dead letters; those it fails, or panics on, do.
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
			switch it.Value {
			case 50:
				return errors.New("the dead-letter table is full")
			case 60:
				panic("the dead-letter table is gone")
			}
			mu.Lock()
			defer mu.Unlock()
			mine = append(mine, it.Key)
			return nil
		})
	})
	if len(seen) != 180 || len(mine) != 18 {
		t.Errorf("the sink saw %d items and the chain's dead letters %d; want 180 and 18", len(seen), len(mine))
	}
	if n, err := q.Len(ctx); err != nil || n != 0 {
		t.Errorf("Len = %d, %v; want 0", n, err)
	}
	if n, err := q.DeadLen(ctx); err != nil || n != 2 {
		t.Errorf("DeadLen = %d, %v; want 2: the dead letters the chain's sink failed", n, err)
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

// TestPanicsLeaveTheirStackInTheDeadLetters runs a chain whose work
// panics on one item, and whose sink panics on another every time it
// meets it, with MaxAttempts 2: both items go to the dead letters,
// the sink's on its second attempt, each saying why it failed and
// carrying, one header value a line, the stack of the goroutine that
// panicked; every other item reaches the sink once.
func TestPanicsLeaveTheirStackInTheDeadLetters(t *testing.T) {
	ctx := context.Background()
	q, err := durable.Open[int](durable.Embedded{Dir: t.TempDir(), Listen: "127.0.0.1:0"}, durable.Config{MaxAttempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if err := q.AddMany(ctx, keyed(20)); err != nil {
		t.Fatal(err)
	}
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	work, err := parallel.Stage(parallel.Config{Limit: 4}, durable.Map(func(_ context.Context, v int) (int, error) {
		if v == 3 {
			panic("the work trips on 3")
		}
		return v, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	sinkTries := 0
	sink := durable.Sink(q, func(it durable.Item[int]) error {
		if it.Value == 5 {
			sinkTries++
			panic("the sink trips on 5")
		}
		seen[it.Key]++
		return nil
	})
	// A run that ends once the queue holds no more than its chain may
	// close the chain before k5 comes back from its first attempt: the
	// next run tries it again.
	for runs := 0; runs < 5; runs++ {
		chain, err := compose.Start(rt, work, sink, compose.WithDeadLetters(q.DeadLetters))
		if err != nil {
			t.Fatal(err)
		}
		run, cancel := context.WithTimeout(ctx, time.Minute)
		err = durable.Consume(run, q, chain, durable.WithUntilEmpty())
		cancel()
		if err != nil && !errors.As(err, new(*agent.DeadLettersError)) {
			t.Fatalf("Consume: %v", err)
		}
		if n, err := q.Len(ctx); err != nil || n == 0 {
			break
		}
	}
	if len(seen) != 18 || sinkTries != 2 {
		t.Errorf("the sink took %d items and tried k5 %d times; want 18 and 2", len(seen), sinkTries)
	}
	dead := deadLetters(t, q.URL(), q.Name())
	for key, want := range map[string]string{"k3": "panic: the work trips on 3", "k5": "sink, attempt 2 of 2: panic: the sink trips on 5"} {
		msg, ok := dead[key]
		if !ok {
			t.Fatalf("%s is not in the dead letters", key)
		}
		if why := msg.Header.Get("Evolve-Error"); !strings.Contains(why, want) {
			t.Errorf("%s's dead letter says %q; want it to say %q", key, why, want)
		}
		stack := strings.Join(msg.Header.Values("Evolve-Stack"), "\n")
		if !strings.Contains(stack, "TestPanicsLeaveTheirStackInTheDeadLetters.func") || !strings.Contains(stack, ".go:") {
			t.Errorf("%s's dead letter carries the stack\n%s\nwant the stack of the function that panicked, with its files and lines", key, stack)
		}
	}
	if got := dead["k5"].Header.Get("Evolve-Attempts"); got != "2" {
		t.Errorf("k5's dead letter says %s attempts; want 2", got)
	}
}

// deadLetters returns the dead letters of the queue name at url, by key.
func deadLetters(t *testing.T, url, name string) map[string]*nats.Msg {
	t.Helper()
	js := jetStream(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, name+"_dead")
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*nats.Msg{}
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		raw, err := s.GetMsg(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		out[raw.Header.Get("Evolve-Key")] = &nats.Msg{Subject: raw.Subject, Header: raw.Header, Data: raw.Data}
	}
	return out
}

// TestAnItemNothingCouldTakeGoesBackWithNoAttemptSpent runs a chain whose
// work fails every item three times for want of anything to work on it
// (an error matching agent.ErrUnavailable, as remote's ErrNoWorker does),
// with MaxAttempts 2, on the queue's own dead letters and on a dead-letter
// sink of the chain's own: each time, the item goes back to the queue, not
// to the dead letters, and its fourth try reaches the sink.
func TestAnItemNothingCouldTakeGoesBackWithNoAttemptSpent(t *testing.T) {
	for name, dead := range map[string]func(*durable.Queue[int]) func(agent.DeadLetter){
		"the queue's dead letters": func(q *durable.Queue[int]) func(agent.DeadLetter) { return q.DeadLetters },
		"a sink of the chain's own": func(q *durable.Queue[int]) func(agent.DeadLetter) {
			return durable.DeadLetterSink(q, func(d agent.DeadLetter) error {
				t.Errorf("the dead-letter sink of the chain's own took %v", d.Err)
				return nil
			})
		},
	} {
		ctx := context.Background()
		q, err := durable.Open[int](durable.Embedded{Dir: t.TempDir()}, durable.Config{MaxAttempts: 2})
		if err != nil {
			t.Fatal(err)
		}
		const n = 10
		if err := q.AddMany(ctx, keyed(n)); err != nil {
			t.Fatal(err)
		}
		rt := agent.NewRuntime()
		var mu sync.Mutex
		tries := map[int]int{}
		work, err := parallel.Stage(parallel.Config{Limit: 4}, durable.Map(func(_ context.Context, v int) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			if tries[v]++; tries[v] <= 3 {
				return 0, fmt.Errorf("no worker for %d: %w", v, agent.ErrUnavailable)
			}
			return v, nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for runs := 0; runs < 10 && len(seen) < n; runs++ {
			chain, err := compose.Start(rt, work, durable.Sink(q, func(it durable.Item[int]) error {
				seen[it.Key]++
				return nil
			}), compose.WithDeadLetters(dead(q)))
			if err != nil {
				t.Fatal(err)
			}
			run, cancel := context.WithTimeout(ctx, time.Minute)
			err = durable.Consume(run, q, chain, durable.WithUntilEmpty())
			cancel()
			if err != nil && !errors.As(err, new(*agent.DeadLettersError)) {
				t.Fatalf("%s: Consume: %v", name, err)
			}
		}
		if len(seen) != n {
			t.Errorf("%s: the sink saw %d keys; want all %d, each on its fourth try", name, len(seen), n)
		}
		if d, err := q.DeadLen(ctx); err != nil || d != 0 {
			t.Errorf("%s: DeadLen = %d, %v; want 0: no worker is not the item's fault", name, d, err)
		}
		_ = rt.Shutdown(ctx)
		q.Close()
	}
}
