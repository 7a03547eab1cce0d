package main

import (
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/evolvekit/evolve/adaptive"
)

// outcome is one controller's, or one fixed limit's, run in a scenario.
type outcome struct {
	name string
	trial
}

// line is one line of the report.
type line struct {
	scenario, controller string
	efficiency           float64 // percent of the best fixed limit's goodput
	converge             int64
	drift                int
	p99, e2e             time.Duration
}

// String formats l as the backtest prints it.
func (l line) String() string {
	return fmt.Sprintf("scenario=%s controller=%s efficiency=%.1f%% converge=%d drift=%d p99=%v p99e2e=%v",
		l.scenario, l.controller, l.efficiency, l.converge, l.drift, round(l.p99), round(l.e2e))
}

// round rounds d for printing: to 0.1ms below a second, to 1ms above.
func round(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Microsecond)
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
	out := make([]line, 0, 1+len(r.controllers))
	for _, o := range append([]outcome{r.best}, r.controllers...) {
		out = append(out, r.line(o))
	}
	return out
}

// line returns o's line.
func (r report) line(o outcome) line {
	l := line{scenario: r.sc.name, controller: o.name, efficiency: 100 * o.goodput() / r.best.goodput(),
		converge: converge(o.res.Trace, r.sc.from, r.sc.span), p99: o.m.service.Quantile(0.99), e2e: o.m.e2e.Quantile(0.99)}
	if r.sc.light {
		l.drift = drift(o.res.Trace, r.sc.from)
	}
	return l
}

// job is one run to make: a fixed limit, or a controller.
type job struct {
	sc    int
	limit int // a fixed limit, or 0 for ctl
	ctl   adaptive.Controller
}

// fixedJobs returns a job for every fixed limit tried in each scenario.
func fixedJobs(scs []scenario) []job {
	var jobs []job
	for i, sc := range scs {
		for l := 1; l <= 2*sc.knee+4; l++ {
			jobs = append(jobs, job{sc: i, limit: l})
		}
	}
	return jobs
}

// backtest runs every fixed limit and every controller in every scenario,
// on all cores, and returns a report per scenario.
func backtest(scs []scenario, ctls []adaptive.Controller, seed uint64) ([]report, error) {
	jobs := fixedJobs(scs)
	for i := range scs {
		for _, c := range ctls {
			jobs = append(jobs, job{sc: i, ctl: c})
		}
	}
	runs, err := runAll(scs, jobs, seed, trial.trim)
	if err != nil {
		return nil, err
	}
	reports := make([]report, len(scs))
	for i, sc := range scs {
		reports[i].sc = sc
	}
	for i, j := range jobs {
		r := &reports[j.sc]
		if j.limit == 0 {
			r.controllers = append(r.controllers, outcome{name: j.ctl.Name(), trial: runs[i]})
		} else if r.best.res == nil || runs[i].goodput() > r.best.goodput() {
			r.best = outcome{name: fmt.Sprintf("fixed-%d", j.limit), trial: runs[i]}
		}
	}
	return reports, nil
}

// runAll makes every run, on all cores, and returns what keep keeps of
// each, in the order of the jobs.
func runAll[T any](scs []scenario, jobs []job, seed uint64, keep func(trial) T) ([]T, error) {
	kept := make([]T, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				var t trial
				if t, errs[i] = jobs[i].run(scs, seed); errs[i] == nil {
					kept[i] = keep(t)
				}
			}
		})
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, j := range jobs {
		if errs[i] != nil {
			return nil, fmt.Errorf("%s: %w", scs[j.sc].name, errs[i])
		}
	}
	return kept, nil
}

// run makes one run.
func (j job) run(scs []scenario, seed uint64) (trial, error) {
	if j.limit > 0 {
		return runFixed(scs[j.sc], j.limit, seed)
	}
	return runAdaptive(scs[j.sc], j.ctl, seed)
}
