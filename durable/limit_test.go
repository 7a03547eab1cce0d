package durable_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/rate"
)

// TestTwoStagesShareOneLimit runs two rate agents of one limit, of 50 a
// second with bursts of 5, each with more to do than the whole limit, for
// four seconds: together they let through no more than 5 + 50·t in any
// window of length t, 100 ms and 1 s among them, and at least nine tenths
// of the limit once both hold shares.
func TestTwoStagesShareOneLimit(t *testing.T) {
	ctx := context.Background()
	q, err := durable.Open[int](durable.Embedded{Dir: t.TempDir()}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	const r, burst = 50.0, 5
	lim, err := q.Limit("api", r, burst)
	if err != nil {
		t.Fatal(err)
	}
	_, err = q.Limit("api", 2*r, burst)
	if want := "limit api is 50 a second with bursts of 5 on the queue's servers; this process asked for 100 and 5"; !errors.Is(err, durable.ErrConfig) || !strings.Contains(fmt.Sprint(err), want) {
		t.Errorf("a limit opened with another rate than its own: %v, want an ErrConfig saying %q", err, want)
	}
	for _, bad := range []struct {
		name  string
		r     float64
		burst int
	}{{"a b", r, burst}, {"api", 0, burst}, {"api", r, 0}} {
		if _, err := q.Limit(bad.name, bad.r, bad.burst); !errors.Is(err, durable.ErrConfig) {
			t.Errorf("Limit(%q, %v, %d): %v, want an ErrConfig", bad.name, bad.r, bad.burst, err)
		}
	}
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	var mu sync.Mutex
	var passed []time.Time
	sink := func(int) {
		mu.Lock()
		passed = append(passed, time.Now())
		mu.Unlock()
	}
	var hs []agent.Handle[int, rate.Status]
	for range 2 {
		h, err := rate.New(rt, rate.Config[int]{Rate: r, Burst: burst, Queue: 1000, Shared: lim}, sink)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
		for i := range 1000 {
			if err := h.Post(ctx, i); err != nil {
				t.Fatal(err)
			}
		}
	}
	const run = 4 * time.Second
	time.Sleep(run)
	for _, h := range hs {
		if err := h.Stop(ctx); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	sort.Slice(passed, func(i, j int) bool { return passed[i].Before(passed[j]) })
	for _, w := range []time.Duration{100 * time.Millisecond, time.Second} {
		worst, bound := windowMost(passed, w), burst+int(r*w.Seconds())
		t.Logf("in any window of %v: at most %d passed; the bound is %d", w, worst, bound)
		if worst > bound {
			t.Errorf("%d passed in a window of %v; the bound is %d", worst, w, bound)
		}
	}
	if len(passed) < int(0.9*r*(run-time.Second).Seconds()) {
		t.Errorf("%d passed in %v; want at least nine tenths of %v a second once both hold shares", len(passed), run, r)
	}
}

// windowMost returns the most instants of sorted that fall in a window of
// length w.
func windowMost(sorted []time.Time, w time.Duration) int {
	most, from := 0, 0
	for i, at := range sorted {
		for at.Sub(sorted[from]) >= w {
			from++
		}
		most = max(most, i-from+1)
	}
	return most
}
