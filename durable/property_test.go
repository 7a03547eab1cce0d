package durable_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
)

// propCase is one random chain of the property test: its stages, whether
// its work fails some items, how, and whether it crashes.
type propCase struct {
	stages  []string // "rate", "parallel", "unordered", "adaptive", each on items
	batch   int      // a buffer stage of this size last; 0 for none
	cursed  int      // items whose value is a multiple of cursed fail for good; 0 for none
	flaky   bool     // other items fail their first attempt, and the stage retries
	dead    bool     // the chain has the queue's dead letters as its dead-letter sink
	crashAt int      // after this many items reached the sink, the process dies; 0 for never
}

// randomCase draws a case.
func randomCase(r *rand.Rand) propCase {
	kinds := []string{"rate", "parallel", "unordered", "adaptive"}
	c := propCase{}
	for range 1 + r.IntN(3) {
		c.stages = append(c.stages, kinds[r.IntN(len(kinds))])
	}
	if r.IntN(2) == 0 {
		c.batch = 1 + r.IntN(40)
	}
	if r.IntN(3) == 0 {
		c.cursed = 7 + r.IntN(20)
	}
	c.flaky = r.IntN(3) == 0
	c.dead = r.IntN(2) == 0
	if r.IntN(2) == 0 {
		c.crashAt = 1 + r.IntN(150)
	}
	return c
}

// TestPropertyAcknowledgedOnlyOnceDone runs random chains of rate,
// parallel (in order or not) and adaptive stages, with or without a
// buffer stage last, on a durable queue of 200 items, with items that fail
// for good, items that fail once and are retried, with and without dead
// letters, and a crash at a random moment (the chain stopped, the queue
// dropped as a dead process's would be, and opened again). Runs follow
// each other until the queue is empty. After every run, what the queue
// acknowledged never exceeds what reached the sink or the dead letters;
// at the end every item did one or the other, the dead letters hold
// exactly the items that fail for good, and the queue is empty.
func TestPropertyAcknowledgedOnlyOnceDone(t *testing.T) {
	skipUnderRace(t)
	const cases, items = 40, 200
	r := rand.New(rand.NewPCG(23, 29))
	crashes, runs := 0, 0
	for i := range cases {
		c := randomCase(r)
		t.Run(fmt.Sprintf("%d-%v-batch%d-cursed%d-flaky%v-dead%v-crash%d", i, c.stages, c.batch, c.cursed, c.flaky, c.dead, c.crashAt), func(t *testing.T) {
			n, crashed := propRun(t, c, items)
			runs += n
			if crashed {
				crashes++
			}
		})
	}
	t.Logf("%d chains of %d items, %d runs, %d crashes", cases, items, runs, crashes)
}

// propRun runs case c to the end and checks it; it returns the runs it
// took and whether it crashed.
func propRun(t *testing.T, c propCase, items int) (int, bool) {
	ctx := context.Background()
	dir := t.TempDir()
	store, cfg := durable.Embedded{Dir: dir}, durable.Config{MaxAttempts: 3}
	q, err := durable.Open[int](store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	entries := make([]durable.Entry[int], items)
	for i := range entries {
		entries[i] = durable.Entry[int]{Key: "k" + strconv.Itoa(i+1), Value: i + 1}
	}
	if err := q.AddMany(ctx, entries); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	reached := map[string]bool{}
	failedOnce := map[string]bool{}
	cursed := func(v int) bool { return c.cursed > 0 && v%c.cursed == 0 }
	crashed := false
	runs := 0
	for ; runs < 10; runs++ {
		crash := c.crashAt > 0 && !crashed
		died := make(chan struct{})
		var once sync.Once
		chain := propChain(t, c, q, func(keys []string) error {
			mu.Lock()
			defer mu.Unlock()
			for _, k := range keys {
				reached[k] = true
			}
			if crash && len(reached) >= c.crashAt {
				once.Do(func() { close(died) })
			}
			return nil
		}, func(v durable.Item[int]) (int, error) {
			switch {
			case cursed(v.Value):
				return 0, fmt.Errorf("%d is cursed", v.Value)
			case c.flaky:
				mu.Lock()
				first := !failedOnce[v.Key]
				failedOnce[v.Key] = true
				mu.Unlock()
				if first {
					return 0, errors.New("flaky")
				}
			}
			return v.Value, nil
		})
		run, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- durable.Consume(run, q, chain, durable.WithUntilEmpty()) }()
		select {
		case err := <-done:
			cancel()
			var dl *agent.DeadLettersError
			if err != nil && !errors.As(err, &dl) && !c.flaky && c.cursed == 0 {
				t.Fatalf("run %d: %v", runs, err)
			}
		case <-died:
			// The process dies: its chain stops, its server goes with it,
			// and nothing it held is handed back.
			crashed = true
			durable.Crash(q)
			stopCtx, stop := context.WithTimeout(ctx, 10*time.Second)
			_ = chain.Stop(stopCtx)
			stop()
			cancel()
			<-done
			if q, err = durable.Open[int](store, cfg); err != nil {
				t.Fatal(err)
			}
		}
		left, err := q.Len(ctx)
		if err != nil {
			t.Fatal(err)
		}
		dead, err := q.DeadLen(ctx)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		got := len(reached)
		mu.Unlock()
		// Acknowledged: no longer in the queue. Each such item reached the
		// sink or the dead letters.
		if acked := items - left; acked > got+dead {
			t.Fatalf("after run %d, %d items are acknowledged, but only %d reached the sink and %d the dead letters", runs, acked, got, dead)
		}
		if left == 0 {
			break
		}
	}
	defer q.Close()
	left, _ := q.Len(ctx)
	dead, _ := q.DeadLen(ctx)
	wantDead := 0
	for i := 1; i <= items; i++ {
		if cursed(i) {
			wantDead++
		} else if !reached["k"+strconv.Itoa(i)] {
			t.Errorf("item k%d never reached the sink", i)
		}
	}
	if left != 0 || dead != wantDead {
		t.Errorf("after %d runs the queue holds %d items and its dead letters %d; want 0 and %d", runs+1, left, dead, wantDead)
	}
	return runs + 1, crashed
}

// propChain starts c's chain on q, whose sink notes the keys that reach
// it with sink, and whose work is work.
func propChain(t *testing.T, c propCase, q *durable.Queue[int], sink func([]string) error, work func(durable.Item[int]) (int, error)) agent.Handle[durable.Item[int], compose.Status] {
	t.Helper()
	rt := agent.NewRuntime()
	t.Cleanup(func() { _ = rt.Shutdown(context.Background()) })
	var retry parallel.Retry
	if c.flaky {
		retry = parallel.Retry{Attempts: 2, Backoff: time.Millisecond}
	}
	w := func(_ context.Context, it durable.Item[int]) (durable.Item[int], error) {
		v, err := work(it)
		return durable.Item[int]{Key: it.Key, Value: v, Ticket: it.Ticket}, err
	}
	var s agent.Stage[durable.Item[int], durable.Item[int]]
	for i, kind := range c.stages {
		var st agent.Stage[durable.Item[int], durable.Item[int]]
		var err error
		// Only the first working stage works; those after it pass items on.
		do := w
		if i > 0 {
			do = func(_ context.Context, it durable.Item[int]) (durable.Item[int], error) { return it, nil }
		}
		switch kind {
		case "rate":
			st, err = rate.Stage(rate.Config[durable.Item[int]]{Rate: 1e5, Burst: 50})
			if i == 0 {
				st = compose.Pipe2(st, mustParallel(t, parallel.Config{Limit: 4, Retry: retry}, w))
			}
		case "parallel":
			st = mustParallel(t, parallel.Config{Limit: 4, Retry: retry}, do)
		case "unordered":
			st = mustParallel(t, parallel.Config{Limit: 4, Unordered: true, Retry: retry}, do)
		case "adaptive":
			st, err = adaptive.Stage(adaptive.Config{Retry: retry}, do)
		}
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			s = st
		} else {
			s = compose.Pipe2(s, st)
		}
	}
	var opts []compose.Option
	if c.dead {
		opts = append(opts, compose.WithDeadLetters(q.DeadLetters))
	}
	if c.batch > 0 {
		b, err := buffer.Stage(buffer.Config[durable.Item[int]]{Size: c.batch, MaxWait: 5 * time.Millisecond}, nil)
		if err != nil {
			t.Fatal(err)
		}
		h, err := compose.Start(rt, compose.Pipe2(s, b), durable.Batches(q, func(batch []durable.Item[int]) error {
			keys := make([]string, len(batch))
			for i, it := range batch {
				keys[i] = it.Key
			}
			return sink(keys)
		}), opts...)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	h, err := compose.Start(rt, s, durable.Sink(q, func(it durable.Item[int]) error { return sink([]string{it.Key}) }), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// mustParallel returns a parallel stage of cfg running work.
func mustParallel(t *testing.T, cfg parallel.Config, work parallel.Work[durable.Item[int], durable.Item[int]]) agent.Stage[durable.Item[int], durable.Item[int]] {
	t.Helper()
	s, err := parallel.Stage(cfg, work)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
