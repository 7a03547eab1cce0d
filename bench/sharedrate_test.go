package bench_test

import (
	"context"
	"flag"
	"slices"
	"strconv"
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

// sharedRateTraceFlag logs, for each shared run, every limit its rate stage
// was granted and every use it reported, with their instants from the
// chain's start. sharedRateForFlag is how long a run of
// BenchmarkSharedRate offers items: by default long enough for two
// renewals of a lease (once a second) to fall inside it.
var (
	sharedRateTraceFlag = flag.Bool("sharedrate-trace", false, "log BenchmarkSharedRate's grants and reports of use")
	sharedRateForFlag   = flag.Duration("sharedrate-for", 3*time.Second, "how long a BenchmarkSharedRate run offers items")
)

// BenchmarkSharedRate runs the Chain benchmark's chain (a rate stage, a
// parallel stage of limit 4 computing x*2+1, batches of 100) with a real
// rate of 1,000, 10,000 and 100,000 items a second and a burst of 10 ms
// of tokens (rate/100): with the rate stage's own bucket
// (SharedRate/RATE/local), or with a limit of that rate and burst shared
// through a durable queue embedded in a directory of its own
// (SharedRate/RATE/shared: Queue.Limit, given as rate.Config.Shared),
// this one process alone on it; the two run one after the other at each
// rate, so that a change in the machine's speed touches both alike. A goroutine posts items from the chain's
// start for 3 s (-sharedrate-for), more than the rate lets through, so
// that items always wait at the rate stage; then the chain closes and
// drains. Each call runs once, whatever b.N.
//
// An item passes when the parallel stage starts its work, which it does
// as the rate stage lets it through (rate's doc: the pace holds where the
// work starts). The measurement window starts at the first item passed
// once a burst's worth have passed (item rate/100; item 0 if fewer than
// two bursts' worth passed in all), not at the chain's start, and ends at
// the last item passed. So the window does not credit the local bucket's
// first burst, which it lets through at once, nor charge the shared
// bucket's wait for its first grant, with no token until then (a few
// round trips to the key-value bucket): that wait is reported apart, as
// first-ms, the time from the chain's start to the first item passed. A
// first grant short of the whole limit, and any later grant, count in the
// window. It reports items/s, the items passed in the window over its
// length, err% = 100 × (items/s − rate) / rate, first-ms, and ns/op, B/op
// and allocs/op per item of the whole run (for shared, with what the
// embedded server does meanwhile: it runs in the process).
func BenchmarkSharedRate(b *testing.B) {
	for _, r := range rates {
		b.Run(strconv.Itoa(r), func(b *testing.B) {
			b.Run("local", func(b *testing.B) { sharedRateRun(b, r, false) })
			b.Run("shared", func(b *testing.B) { sharedRateRun(b, r, true) })
		})
	}
}

// sharedRateRun runs once, whatever b.N, the chain at rate r with a
// limit of its own or, if shared, one shared through a durable queue.
func sharedRateRun(b *testing.B, r int, shared bool) {
	ctx := context.Background()
	burst := max(1, r/100)
	cfg := rate.Config[int]{Rate: float64(r), Burst: burst}
	var trace *grantLog
	if shared {
		q, err := durable.Open[int](durable.Embedded{Dir: b.TempDir()}, durable.Config{})
		if err != nil {
			b.Fatal(err)
		}
		defer q.Close()
		lim, err := q.Limit("bench", float64(r), burst)
		if err != nil {
			b.Fatal(err)
		}
		trace = &grantLog{Shared: lim}
		cfg.Shared = trace
	}
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	// At most twice the rate for the whole run: a bucket that let through
	// more runs out of items, and is measured on those.
	n := burst + int(2*float64(r)*sharedRateForFlag.Seconds())
	passed := make([]time.Duration, n) // each item's, from the chain's start
	var start time.Time
	s := newSeen(n)
	c := sharedRateChain(b, rt, cfg, passed, &start, s)
	run := startFixed(b)
	start = run.start
	posted := sharedRateFeed(ctx, b, c, n, start.Add(*sharedRateForFlag))
	run.done(posted)
	s.checkFirst(b, posted)
	if trace != nil {
		trace.report(b, start)
	}
	sharedRateMeasure(b, r, burst, passed[:posted])
}

// sharedRateChain starts the chain of cfg's rate stage, the parallel
// stage, whose work notes in passed when each item starts, from *start,
// and the buffer stage, to a sink that marks the items in s.
func sharedRateChain(b *testing.B, rt *agent.Runtime, cfg rate.Config[int], passed []time.Duration, start *time.Time, s *seen) agent.Handle[int, compose.Status] {
	limit, err := rate.Stage(cfg)
	if err != nil {
		b.Fatal(err)
	}
	work, err := parallel.Stage(parallel.Config{Limit: chainLimit}, func(_ context.Context, x int) (int, error) {
		passed[x] = time.Since(*start)
		return double(x), nil
	})
	if err != nil {
		b.Fatal(err)
	}
	batches, err := buffer.Stage(buffer.Config[int]{Size: chainBatch}, nil)
	if err != nil {
		b.Fatal(err)
	}
	c, err := compose.Start(rt, compose.Pipe3(limit, work, batches), func(batch []int) {
		for _, v := range batch {
			s.mark(odd(v))
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// sharedRateFeed posts items 0, 1, 2, ... to c until deadline, at most n
// of them, then closes c and waits for it; it returns how many it posted.
func sharedRateFeed(ctx context.Context, b *testing.B, c agent.Handle[int, compose.Status], n int, deadline time.Time) int {
	posted := 0
	for ; posted < n && time.Now().Before(deadline); posted++ {
		if err := c.Post(ctx, posted); err != nil {
			b.Fatal(err)
		}
	}
	c.Close()
	if err := c.Wait(ctx); err != nil {
		b.Fatal(err)
	}
	return posted
}

// sharedRateMeasure reports the figures of a run at rate r and burst
// burst whose items passed at the instants passed (see
// BenchmarkSharedRate).
func sharedRateMeasure(b *testing.B, r, burst int, passed []time.Duration) {
	last, w := len(passed)-1, burst
	if last < 2*burst {
		w = 0 // far too slow for a burst to matter
	}
	if last <= w {
		b.Fatalf("%d items passed: too few to measure", len(passed))
	}
	// The parallel stage starts items in order, but its workers may note
	// the instants a hair out of it.
	from, to := passed[w], slices.Max(passed)
	achieved := float64(last-w) / (to - from).Seconds()
	b.ReportMetric(100*(achieved-float64(r))/float64(r), "err%")
	b.ReportMetric(achieved, "items/s")
	b.ReportMetric(float64(passed[0])/float64(time.Millisecond), "first-ms")
}

// grantLog is a rate.Shared that notes what passes between the limit it
// wraps and the rate agent that joins it: the limits granted and the uses
// reported, each with its instant. Its methods are safe for concurrent use.
type grantLog struct {
	rate.Shared
	mu     sync.Mutex
	events []grantEvent
}

// grantEvent is a grant (a limit set) or a report of use.
type grantEvent struct {
	at              time.Time
	limit           rate.Limit
	grant           bool
	waiting, passed int
}

func (g *grantLog) note(e grantEvent) {
	e.at = time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.events = append(g.events, e)
}

// Join joins the wrapped limit, noting what passes.
func (g *grantLog) Join(set func(rate.Limit) bool) (func(int, int), func()) {
	use, leave := g.Shared.Join(func(l rate.Limit) bool {
		g.note(grantEvent{limit: l, grant: true})
		return set(l)
	})
	return func(waiting, passed int) {
		g.note(grantEvent{waiting: waiting, passed: passed})
		use(waiting, passed)
	}, leave
}

// report logs the events, with their instants from start, under
// -sharedrate-trace.
func (g *grantLog) report(b *testing.B, start time.Time) {
	if !*sharedRateTraceFlag {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, e := range g.events {
		at := e.at.Sub(start).Seconds() * 1000
		if e.grant {
			b.Logf("%8.1f ms  grant %.1f/s, burst %d, until %v", at, e.limit.Rate, e.limit.Burst, e.limit.Until.Sub(start).Round(time.Millisecond))
		} else {
			b.Logf("%8.1f ms  use: %d waiting, %d passed", at, e.waiting, e.passed)
		}
	}
}
