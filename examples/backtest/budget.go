package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	ratestage "github.com/evolvekit/evolve/rate"
	"github.com/evolvekit/evolve/sim"
)

// budgetWorkers is how many workers the three stages of a budget scenario
// share.
const budgetWorkers = 12

// budgetScenario is a chain of three parallel stages, each with a capacity
// of its own, under a flood of items, so that the chain's throughput is
// that of its slowest stage.
type budgetScenario struct {
	name     string
	capacity [3]sim.Capacity
	duration time.Duration
	// moving says the bottleneck moves from stage to stage: the budget is
	// judged against the equal split there, and against the best static
	// split in the steady scenarios.
	moving bool
	// rate, when above 0, puts a rate stage of that many items a second
	// in front of the three, with a burst of 10: the first stage then
	// takes items only as it can start them, and its backlog waits in the
	// rate stage's queue.
	rate float64
}

// budgetScenarios returns the budget scenarios, each lasting scale times
// its usual 30 seconds.
func budgetScenarios(scale float64) []budgetScenario {
	d := time.Duration(scale * float64(30*time.Second))
	ms := time.Millisecond
	linear := func(base time.Duration) sim.Curve { return sim.Curve{Base: base, Knee: 32} }
	jitter := sim.Noise{Jitter: 0.3, Tail: 0.01}
	noisy := func(c sim.Curve) sim.Curve { c.Noise = jitter; return c }
	step := func(at time.Duration, before, after sim.Capacity) sim.Step {
		return sim.Step{At: at, Before: before, After: after}
	}
	return []budgetScenario{
		// Work of 10, 20 and 30 ms: the best split is 2/4/6.
		{name: "proportional", duration: d,
			capacity: [3]sim.Capacity{linear(10 * ms), linear(20 * ms), linear(30 * ms)}},
		// Three shapes of capacity: a knee past the best share, a gradual
		// curve, and a heavy tail.
		{name: "curves", duration: d,
			capacity: [3]sim.Capacity{sim.Curve{Base: 5 * ms, Knee: 4, Contention: 0.5},
				sim.Gradual{Base: 15 * ms, Peak: 16}, noisy(sim.Curve{Base: 25 * ms, Knee: 16, Contention: 0.5})}},
		// One slow stage and two quick ones, all noisy.
		{name: "one-slow", duration: d,
			capacity: [3]sim.Capacity{noisy(linear(4 * ms)), noisy(linear(50 * ms)), noisy(linear(6 * ms))}},
		// The bottleneck moves from the first stage to the last halfway.
		{name: "shift", duration: d, moving: true,
			capacity: [3]sim.Capacity{step(d/2, linear(40*ms), linear(5*ms)), linear(10 * ms),
				step(d/2, linear(5*ms), linear(40*ms))}},
		// The bottleneck moves from the first stage to the second, then to
		// the third.
		// A rate stage in front of stages of 30, 10 and 20 ms, which
		// the equal split holds below the rate and the best one does not:
		// the first stage's backlog waits in the rate stage.
		{name: "paced", duration: d, rate: 180,
			capacity: [3]sim.Capacity{linear(30 * ms), linear(10 * ms), linear(20 * ms)}},
		{name: "rotate", duration: d, moving: true,
			capacity: [3]sim.Capacity{
				step(d/3, noisy(linear(40*ms)), noisy(linear(5*ms))),
				step(d/3, noisy(linear(5*ms)), step(2*d/3, noisy(linear(40*ms)), noisy(linear(5*ms)))),
				step(2*d/3, noisy(linear(5*ms)), noisy(linear(40*ms)))}},
	}
}

// budgetOutcome is how a scenario went: the budget's run, the best static
// split's, and the equal split's.
type budgetOutcome struct {
	sc             budgetScenario
	budget         *sim.Result
	best           []int
	bestThroughput float64
	equal          float64
}

// ratioBest is the budget's throughput as a percentage of the best static
// split's.
func (o budgetOutcome) ratioBest() float64 { return 100 * o.budget.Throughput / o.bestThroughput }

// gainEqual is how much more throughput the budget has than the equal
// split, in percent.
func (o budgetOutcome) gainEqual() float64 { return 100 * (o.budget.Throughput/o.equal - 1) }

// String formats o as budgetReport prints it.
func (o budgetOutcome) String() string {
	return fmt.Sprintf("scenario=%s budget=%.1f best-static=%d/%d/%d:%.1f equal=%.1f ratio-best=%.1f%% gain-equal=%.1f%%",
		o.sc.name, o.budget.Throughput, o.best[0], o.best[1], o.best[2], o.bestThroughput, o.equal, o.ratioBest(), o.gainEqual())
}

// budgetReport runs every budget scenario with the seed, each lasting
// scale times its usual duration, and prints one line for each: the
// throughput (items per second) of the chain whose stages share
// budgetWorkers workers (compose.WithWorkers, sim.Config.Workers), of
// the best static split of them (every split is tried), and of the equal
// split, then the budget's throughput as a percentage of the best split's
// and its gain over the equal split:
//
//	scenario=NAME budget=THROUGHPUT best-static=SPLIT:THROUGHPUT equal=THROUGHPUT ratio-best=PCT gain-equal=PCT
//
// With plotDir it writes plotDir/budget-NAME.png for each: each stage's
// workers over time under the budget, and the items queued for each (in
// its own queue: not those waiting in a rate stage in front); and it prints
// to log the path of each file it wrote.
func budgetReport(w, log io.Writer, seed uint64, scale float64, plotDir string) error {
	outcomes, err := budgetBacktest(budgetScenarios(scale), seed)
	if err != nil {
		return err
	}
	for _, o := range outcomes {
		if _, err := fmt.Fprintln(w, o); err != nil {
			return err
		}
		if plotDir != "" {
			path, err := drawBudget(o, plotDir)
			if err != nil {
				return err
			}
			fmt.Fprintf(log, "backtest: wrote %s\n", path)
		}
	}
	return nil
}

// budgetBacktest runs each scenario with the budget and with every static
// split of budgetWorkers.
func budgetBacktest(scs []budgetScenario, seed uint64) ([]budgetOutcome, error) {
	var out []budgetOutcome
	for _, sc := range scs {
		o := budgetOutcome{sc: sc}
		var err error
		if o.budget, err = runSplit(sc, seed, nil); err != nil {
			return nil, fmt.Errorf("%s: budget: %w", sc.name, err)
		}
		equal := equalSplit(budgetWorkers, len(sc.capacity))
		for _, split := range splits(budgetWorkers, len(sc.capacity)) {
			res, err := runSplit(sc, seed, split)
			if err != nil {
				return nil, fmt.Errorf("%s: split %v: %w", sc.name, split, err)
			}
			if tp := res.Throughput; tp > o.bestThroughput {
				o.best, o.bestThroughput = split, tp
			}
			if fmt.Sprint(split) == fmt.Sprint(equal) {
				o.equal = res.Throughput
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// splits returns every way of sharing n workers among k stages, at least
// one each.
func splits(n, k int) [][]int {
	if k == 1 {
		return [][]int{{n}}
	}
	var out [][]int
	for first := 1; first <= n-(k-1); first++ {
		for _, rest := range splits(n-first, k-1) {
			out = append(out, append([]int{first}, rest...))
		}
	}
	return out
}

// equalSplit returns n workers shared evenly among k stages, the earlier
// ones taking the remainder, as the budget shares them at the start.
func equalSplit(n, k int) []int {
	out := make([]int, k)
	for i := range out {
		out[i] = n / k
		if i < n%k {
			out[i]++
		}
	}
	return out
}

// budgetEvery is the period of a budget run's trace: a fifth of the
// period the workers are shared on, so that the plots show every change.
const budgetEvery = sim.DefaultWorkersPeriod / 5

// runSplit runs sc's chain with its stages' limits fixed at split, or,
// with split nil, sharing budgetWorkers workers.
func runSplit(sc budgetScenario, seed uint64, split []int) (*sim.Result, error) {
	var stages [3]agent.Stage[int, int]
	for i := range stages {
		limit := 1
		if split != nil {
			limit = split[i]
		}
		s, err := parallel.Stage(parallel.Config{Name: fmt.Sprintf("stage%d", i+1), Limit: limit, MaxBatch: 1, Unordered: true},
			func(_ context.Context, v int) (int, error) { return v, nil })
		if err != nil {
			return nil, err
		}
		stages[i] = s
	}
	chain, capacity := compose.Pipe3(stages[0], stages[1], stages[2]), sc.capacity[:]
	if sc.rate > 0 {
		pace, err := ratestage.Stage(ratestage.Config[int]{Rate: sc.rate, Burst: 10})
		if err != nil {
			return nil, err
		}
		chain, capacity = compose.Pipe2(pace, chain), append([]sim.Capacity{nil}, capacity...)
	}
	cfg := sim.Config{Seed: seed, Capacity: capacity, Arrivals: sim.Flood{}, Duration: sc.duration}
	if split == nil {
		cfg.Workers, cfg.Every = budgetWorkers, budgetEvery
	}
	return sim.Run(cfg, sim.Chain[int, int]{
		Stage: chain,
		Limit: func(st any) int {
			p, _ := st.(parallel.Status)
			return p.Limit
		},
	})
}

// stageColours colours the stages' lines: the colours of hill, santa and
// aimd in the controllers' plots.
var stageColours = palette[1:4]

// drawBudget writes dir/budget-NAME.png for o and returns its path: each
// stage's workers over time under the budget on top, the items queued for
// each below, and the legend to the right.
func drawBudget(o budgetOutcome, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	agents := o.budget.Agents[len(o.budget.Agents)-len(o.sc.capacity):] // the stages, without a rate stage in front
	traces, names := make([]sim.Trace, len(agents)), make([]string, len(agents))
	for i, st := range agents {
		traces[i], names[i] = st.Trace, st.Name
	}
	top, err := panel(o.sc.name+": workers (budget of "+fmt.Sprint(budgetWorkers)+")", "workers", traces, stageColours,
		at(func(s sim.Sample) float64 { return float64(s.Limit) }))
	if err != nil {
		return "", err
	}
	bottom, err := panel(o.sc.name+": items queued", "queued", traces, stageColours,
		at(func(s sim.Sample) float64 { return float64(s.Queued) }))
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "budget-"+o.sc.name+".png")
	return path, writeStacked(path, top, bottom, legend(names, stageColours))
}
