package sim_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/evolvekit/evolve/sim"
)

// TestEveryWorkStartKeepsThePaceOfTheRateStage runs random chains of a
// rate stage, then a parallel or adaptive stage, and now and then a buffer
// whose flushes are slow, in virtual time: random rates, bursts, limits,
// queues and batches, in input order or not, work that is now and then
// very slow, that fails at random, retried with a backoff and sometimes a
// retry-after, limits moved by a worker budget or by the adaptive
// controller. It records the instant of every start of the work, retries
// included, and checks that in every window [t, t+w] that opens at a
// start no more start than the bucket lets through: burst + rate·w. It
// also checks that every chain drains and that every item ends once, as
// a value or a dead letter.
func TestEveryWorkStartKeepsThePaceOfTheRateStage(t *testing.T) {
	const chains = 1000
	var items, starts int64
	var broken []error
	for seed := range uint64(chains) {
		n, k, err := paceChain(t, seed)
		items, starts = items+n, starts+k
		if err != nil {
			broken = append(broken, err)
		}
	}
	t.Logf("%d chains, %d items, %d work starts checked", chains, items, starts)
	if len(broken) > 0 {
		t.Errorf("%d of %d chains started work faster than their rate stage lets it through; the first: %v", len(broken), chains, broken[0])
	}
}

// paceWorld is one random chain and the world it runs in.
type paceWorld struct {
	pace       rate.Config[int]
	adaptive   bool
	par        parallel.Config
	ada        adaptive.Config
	buffer     int           // the buffer's Size, 0 for none
	flush      time.Duration // how long the buffer's flushes take
	base       time.Duration // the work's usual service time
	slow       float64       // the share of work that stalls, 10 to 100 times slower
	fail       float64       // the share of attempts that fail
	retryAfter float64       // the share of failures that ask for a wait
	workers    int           // a budget of workers for the parallel stage, 0 for none
	cfg        sim.Config
}

func (w paceWorld) String() string {
	kind := fmt.Sprintf("parallel %+v", w.par)
	if w.adaptive {
		kind = fmt.Sprintf("adaptive %+v", w.ada)
	}
	return fmt.Sprintf("rate %v/s burst %d queue %d, %s, buffer %d (flush %v), work %v slow %.2f fail %.2f after %.2f, workers %d, %v arrivals",
		w.pace.Rate, w.pace.Burst, w.pace.Queue, kind, w.buffer, w.flush, w.base, w.slow, w.fail, w.retryAfter, w.workers, w.cfg.Arrivals)
}

// randomPaceWorld draws the chain and world of seed.
func randomPaceWorld(seed uint64) paceWorld {
	r := rand.New(rand.NewPCG(seed, 0x9ace))
	var w paceWorld
	perSecond := math.Round(20 * math.Pow(100, r.Float64())) // 20 to 2000 a second
	w.pace = rate.Config[int]{Rate: perSecond, Burst: 1 + r.IntN(10), Queue: 1 + r.IntN(32)}
	retry := parallel.Retry{Attempts: 1 + r.IntN(5), Backoff: time.Duration(1 + r.IntN(int(20*time.Millisecond))), Seed: seed}
	retry.MaxBackoff = retry.Backoff * time.Duration(1+r.IntN(8))
	w.adaptive = r.IntN(3) == 0
	if w.adaptive {
		w.ada = adaptive.Config{Max: 2 + r.IntN(15), Queue: 1 + r.IntN(32), Unordered: r.IntN(2) == 0, Seed: seed, Retry: retry,
			CancelOnError: r.IntN(20) == 0}
	} else {
		w.par = parallel.Config{Limit: 1 + r.IntN(12), Queue: 1 + r.IntN(32), Unordered: r.IntN(2) == 0,
			MaxBatch: []int{1, 3, 0}[r.IntN(3)], Retry: retry, CancelOnError: r.IntN(20) == 0}
		if r.IntN(4) == 0 {
			w.workers = 1 + r.IntN(12)
		}
	}
	if r.IntN(2) == 0 {
		w.buffer = 1 + r.IntN(20)
		w.flush = time.Duration(r.IntN(int(30 * time.Millisecond)))
	}
	w.base = time.Duration(1 + r.IntN(int(20*time.Millisecond)))
	w.slow = []float64{0, 0.02, 0.1}[r.IntN(3)]
	w.fail = []float64{0, 0.1, 0.2, 0.4}[r.IntN(4)]
	w.retryAfter = r.Float64()
	arrivals := []sim.Arrivals{sim.Flood{}, sim.Steady{Rate: perSecond * 1.5, Poisson: true}, sim.Bursts{Size: 40, Every: time.Duration(40 / perSecond * float64(time.Second))}}
	w.cfg = sim.Config{
		Seed: seed, Arrivals: arrivals[r.IntN(len(arrivals))], Drain: true,
		Duration: time.Duration((200 + r.Float64()*200) / perSecond * float64(time.Second)), // about 200 to 400 items
		Workers:  w.workers, WorkersPeriod: time.Duration(1+r.IntN(50)) * time.Millisecond,
	}
	return w
}

// startClock is the work's Capacity: it gives each start a service time,
// now and then a stall, and stamps the items the work function just began
// (the simulator calls the work, then asks the capacity) with the instant
// of their start.
type startClock struct {
	w       *paceWorld
	pending int
	at      []time.Duration
}

func (c *startClock) Service(r *rand.Rand, at time.Duration, _ int) time.Duration {
	for range c.pending {
		c.at = append(c.at, at)
	}
	c.pending = 0
	d := float64(c.w.base) * (0.5 + r.Float64())
	if r.Float64() < c.w.slow {
		d *= 10 + 90*r.Float64()
	}
	return time.Duration(d)
}

// flaky is the work: each attempt at an item fails as the world says, a
// failure asking for a wait of 10 or 50 ms now and then, the same for one
// seed.
type flaky struct {
	w     *paceWorld
	seed  uint64
	tries map[int]int
	clock *startClock
}

var errFlaky = errors.New("the work failed")

func (f *flaky) work(_ context.Context, v int) (int, error) {
	f.clock.pending++
	f.tries[v]++
	r := rand.New(rand.NewPCG(f.seed, uint64(v)<<8|uint64(f.tries[v])))
	if r.Float64() >= f.w.fail {
		return v, nil
	}
	err := fmt.Errorf("item %d attempt %d: %w", v, f.tries[v], errFlaky)
	if r.Float64() < f.w.retryAfter {
		err = agent.RetryAfter(err, []time.Duration{10 * time.Millisecond, 50 * time.Millisecond}[r.IntN(2)])
	}
	return 0, err
}

// paceChain runs the chain of seed and checks it; it returns the items
// posted, the work started, and the first window of starts that breaks
// the pace.
func paceChain(t *testing.T, seed uint64) (items, starts int64, broken error) {
	t.Helper()
	w := randomPaceWorld(seed)
	clock := &startClock{w: &w}
	f := &flaky{w: &w, seed: seed, tries: map[int]int{}, clock: clock}
	stage, err := paceStage(w, f.work)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	w.cfg.Capacity = []sim.Capacity{nil, clock, sim.Curve{Base: max(w.flush, 1), Knee: 1}}
	out := int64(0)
	res, err := sim.Run(w.cfg, sim.Chain[int, []int]{Stage: stage, Item: func(n uint64) int { return int(n) },
		Sink: func(_ time.Duration, b []int) { out += int64(len(b)) }})
	if err != nil {
		t.Fatalf("seed %d (%v): %v", seed, w, err)
	}
	work := res.Agents[1]
	switch {
	case !res.Finished:
		t.Fatalf("seed %d (%v): the chain did not drain", seed, w)
	case out+work.DeadLetters != res.Posted:
		t.Fatalf("seed %d (%v): %d items posted, %d out and %d dead letters", seed, w, res.Posted, out, work.DeadLetters)
	case int64(len(clock.at)) != work.Started && (w.adaptive || w.par.MaxBatch == 1):
		t.Fatalf("seed %d: %d starts stamped, %d work started", seed, len(clock.at), work.Started)
	}
	if err := withinBucket(clock.at, w.pace.Rate, w.pace.Burst); err != nil {
		broken = fmt.Errorf("seed %d (%v): %w", seed, w, err)
	}
	return res.Posted, int64(len(clock.at)), broken
}

// paceStage is rate, then the parallel or adaptive stage, then the buffer
// if the world has one.
func paceStage(w paceWorld, work parallel.Work[int, int]) (agent.Stage[int, []int], error) {
	r, err := rate.Stage(w.pace)
	if err != nil {
		return agent.Stage[int, []int]{}, err
	}
	var mid agent.Stage[int, int]
	if w.adaptive {
		mid, err = adaptive.Stage(w.ada, work)
	} else {
		mid, err = parallel.Stage(w.par, work)
	}
	if err != nil {
		return agent.Stage[int, []int]{}, err
	}
	size := w.buffer
	if size == 0 {
		size = 1
	}
	b, err := buffer.Stage(buffer.Config[int]{Size: size}, nil)
	if err != nil {
		return agent.Stage[int, []int]{}, err
	}
	return compose.Pipe3(r, mid, b), nil
}

// withinBucket reports the first window that opens at a start and holds
// more starts than a bucket of rate r and burst b lets through: burst +
// r·w, give or take the nanosecond to which the bucket rounds its instants
// and float rounding.
func withinBucket(at []time.Duration, r float64, b int) error {
	for i := range at {
		if i > 0 && at[i] == at[i-1] {
			continue // the window opening at the first start of an instant holds the others
		}
		for j := i; j < len(at); j++ {
			w := at[j] - at[i]
			allowed := float64(b) + r*(w+time.Nanosecond).Seconds() + 1e-9
			if float64(j-i+1) > allowed {
				return fmt.Errorf("%d starts in the %v from %v, a bucket of %g/s and burst %d allows %.2f", j-i+1, w, at[i], r, b, allowed)
			}
		}
	}
	return nil
}
