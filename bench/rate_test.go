package bench_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/rate"
	"go.uber.org/ratelimit"
	xrate "golang.org/x/time/rate"
)

// rates are the configured rates BenchmarkRate measures, in items a second.
var rates = []int{1000, 10000, 100000}

// limiter passes items 0, 1, 2, ... through a limiter set to rate r and
// burst burst, each as soon as the limiter allows, calling pass with each
// item's number as it gets through, in order. It offers items while more
// returns true, at most n of them.
type limiter struct {
	name string
	run  func(ctx context.Context, r, burst, n int, more func() bool, pass func(int)) error
}

var limiters = []limiter{
	{"evolve", rateEvolve},
	{"xrate", rateX},
	{"uber", rateUber},
}

// BenchmarkRate measures how close each limiter's achieved rate comes to the
// configured one, at 1,000, 10,000 and 100,000 items a second, with a burst
// of 10 ms of tokens (BenchmarkRate/LIMITER/RATE) and with a burst of 1
// (BenchmarkRate/burst-1/LIMITER/RATE). Each run takes about 1.1 s whatever
// b.N, and at most rateCap; see [rateRun] for what it measures.
func BenchmarkRate(b *testing.B) {
	for _, l := range limiters {
		b.Run(l.name, func(b *testing.B) {
			for _, r := range rates {
				b.Run(strconv.Itoa(r), func(b *testing.B) { rateRun(b, l, r, max(1, r/100)) })
			}
		})
	}
	b.Run("burst-1", func(b *testing.B) {
		for _, l := range limiters {
			b.Run(l.name, func(b *testing.B) {
				for _, r := range rates {
					b.Run(strconv.Itoa(r), func(b *testing.B) { rateRun(b, l, r, 1) })
				}
			})
		}
	})
}

// rateCap is the longest a run offers items for: a limiter far slower than
// its configured rate stops there instead of taking minutes.
const rateCap = 2 * time.Second

// rateWarmUp is how long after its burst a run waits before it starts
// measuring.
const rateWarmUp = 100 * time.Millisecond

// rateRun runs once, whatever b.N (a run is a second of real time, so
// repeating it b.N times would only make the benchmark slow; with the default
// -benchtime the testing package stops after one call). It offers
// n = burst + r/10 + 1 + r items to l. The first item that passes once the
// burst's worth have passed and rateWarmUp has elapsed, item w (item
// burst + r/10 for an exact limiter), starts the measurement; the achieved
// rate is the items passed after item w divided by the time from item w to the
// last one. So it neither credits the initial burst nor penalises a limiter
// that starts without one. A limiter still not done after rateCap is offered
// no more items and is measured on those it passed. It reports
// err% = 100*(achieved-r)/r, the achieved rate as items/s, and ns/op, B/op and
// allocs/op per item of the whole run.
func rateRun(b *testing.B, l limiter, r, burst int) {
	n := burst + r/10 + 1 + r
	s := newSeen(n)
	var start, from, to time.Time
	w, last := -1, -1
	pass := func(i int) {
		now := time.Now()
		if w < 0 && i >= burst && now.Sub(start) >= rateWarmUp {
			w, from = i, now
		}
		to, last = now, i
		s.mark(i)
	}
	run := startFixed(b)
	start = run.start
	deadline := start.Add(rateCap)
	more := func() bool { return time.Now().Before(deadline) }
	if err := l.run(context.Background(), r, burst, n, more, pass); err != nil {
		b.Fatal(err)
	}
	run.done(last + 1)
	s.checkFirst(b, last+1)
	if w < 0 || last == w {
		b.Fatalf("%d items passed in %v: too few to measure after the warm-up", last+1, time.Since(start))
	}
	achieved := float64(last-w) / to.Sub(from).Seconds()
	b.ReportMetric(100*(achieved-float64(r))/float64(r), "err%")
	b.ReportMetric(achieved, "items/s")
}

// rateEvolve posts the items from a goroutine to a rate agent (rate.New, its
// default input queue of 64), whose sink passes them.
func rateEvolve(ctx context.Context, r, burst, n int, more func() bool, pass func(int)) error {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	a, err := rate.New(rt, rate.Config[int]{Rate: float64(r), Burst: burst}, pass)
	if err != nil {
		return err
	}
	posted := make(chan error, 1)
	go func() {
		defer a.Close()
		for i := 0; i < n && more(); i++ {
			if err := a.Post(ctx, i); err != nil {
				posted <- err
				return
			}
		}
		posted <- nil
	}()
	if err := a.Wait(ctx); err != nil {
		return err
	}
	return <-posted
}

// rateX calls Wait on an x/time/rate Limiter (NewLimiter(r, burst)) before
// each item.
func rateX(ctx context.Context, r, burst, n int, more func() bool, pass func(int)) error {
	lim := xrate.NewLimiter(xrate.Limit(r), burst)
	for i := 0; i < n && more(); i++ {
		if err := lim.Wait(ctx); err != nil {
			return err
		}
		pass(i)
	}
	return nil
}

// rateUber calls Take on a uber-go/ratelimit Limiter before each item:
// ratelimit.New(r, ratelimit.WithSlack(burst)), so its slack is the same 10 ms
// of tokens as the others' burst (at 1,000/s that is its default slack of 10),
// and ratelimit.WithoutSlack for a burst of 1.
func rateUber(_ context.Context, r, burst, n int, more func() bool, pass func(int)) error {
	slack := ratelimit.WithSlack(burst)
	if burst == 1 {
		slack = ratelimit.WithoutSlack
	}
	lim := ratelimit.New(r, slack)
	for i := 0; i < n && more(); i++ {
		lim.Take()
		pass(i)
	}
	return nil
}
