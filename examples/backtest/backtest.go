package main

import (
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/evolvekit/evolve/agent/sim"
)

// outcome is one controller's, or one fixed limit's, run in a scenario.
type outcome struct {
	name string
	res  *sim.Result
}

// line is one line of the report.
type line struct {
	scenario, controller string
	efficiency           float64 // percent of the best fixed limit's throughput
	converge             int64
	drift                int
	p99                  time.Duration
}

// String formats l as the backtest prints it.
func (l line) String() string {
	return fmt.Sprintf("scenario=%s controller=%s efficiency=%.1f%% converge=%d drift=%d p99=%v",
		l.scenario, l.controller, l.efficiency, l.converge, l.drift, l.p99.Round(100*time.Microsecond))
}

// report is a scenario's outcomes: the best fixed limit's and each
// controller's.
type report struct {
	sc          scenario
	best        outcome
	controllers []outcome
}

// lines returns the report's lines: the best fixed limit's, then each
// controller's.
func (r report) lines() []line {
	x := r.best.res.Throughput()
	out := make([]line, 0, 1+len(r.controllers))
	for _, o := range append([]outcome{r.best}, r.controllers...) {
		l := line{scenario: r.sc.name, controller: o.name, efficiency: 100 * o.res.Throughput() / x,
			converge: converge(o.res.Trace, r.sc.from, r.sc.span), p99: o.res.Service.Quantile(0.99)}
		if r.sc.light {
			l.drift = drift(o.res.Trace, r.sc.from)
		}
		out = append(out, l)
	}
	return out
}

// job is one run to make.
type job struct {
	sc    int
	limit int // a fixed limit, or 0 for controller ctl
	ctl   int
}

// backtest runs every fixed limit and every controller in every scenario,
// on all cores, and returns a report per scenario.
func backtest(scs []scenario, seed uint64) ([]report, error) {
	var jobs []job
	for i, sc := range scs {
		for l := 1; l <= 2*sc.knee+4; l++ {
			jobs = append(jobs, job{sc: i, limit: l})
		}
		for c := range controllers() {
			jobs = append(jobs, job{sc: i, ctl: c})
		}
	}
	results := make([]*sim.Result, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				results[i], errs[i] = jobs[i].run(scs, seed)
			}
		})
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	return collect(scs, jobs, results, errs)
}

// run makes one run.
func (j job) run(scs []scenario, seed uint64) (*sim.Result, error) {
	if j.limit > 0 {
		return runFixed(scs[j.sc], j.limit, seed)
	}
	return runAdaptive(scs[j.sc], controllers()[j.ctl], seed)
}

// collect groups the runs into reports, keeping the best fixed limit.
func collect(scs []scenario, jobs []job, results []*sim.Result, errs []error) ([]report, error) {
	reports := make([]report, len(scs))
	for i, sc := range scs {
		reports[i].sc = sc
	}
	names := controllers()
	for i, j := range jobs {
		if errs[i] != nil {
			return nil, fmt.Errorf("%s: %w", scs[j.sc].name, errs[i])
		}
		r := &reports[j.sc]
		if j.limit == 0 {
			r.controllers = append(r.controllers, outcome{name: names[j.ctl].Name(), res: results[i]})
		} else if r.best.res == nil || results[i].Throughput() > r.best.res.Throughput() {
			r.best = outcome{name: fmt.Sprintf("fixed-%d", j.limit), res: results[i]}
		}
	}
	return reports, nil
}
