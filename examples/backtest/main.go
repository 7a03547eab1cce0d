// Command backtest compares controllers of the adaptive agent in the
// simulator, on the same scenarios and with the same seed, against the best
// fixed limit for each scenario: adaptive.Hill, the agent's default, and the
// baselines kept here, written as any controller outside package adaptive
// would be: Santa, the algorithm the adaptive agent descends from, and
// AIMD, Gradient2 and Vegas after Netflix's concurrency-limits library,
// each fed every sample (aimd, gradient2, vegas) and, as the library's
// README sets them up, one sample per window (aimd-windowed and so on:
// Windowed). The baselines run with the settings a sweep chose (-sweep). It
// prints one line per scenario and controller:
//
//	scenario=NAME controller=NAME efficiency=PCT converge=N drift=N p99=DURATION p99e2e=DURATION
//
// efficiency is goodput (results that did not fail, per second) as a
// percentage of the best fixed limit's; converge is the completions until
// throughput stays within 5% of its final value (counted from the capacity
// step, or from the start of light load, in the scenarios that have one);
// drift is the largest rise of the limit under light load (measured in the
// light scenarios only; 0 elsewhere); p99 is the 99th percentile of service
// time, from the start of a piece of work to its end; p99e2e the 99th
// percentile of the time from an item's arrival to its result (from its
// entry into the agent's queue under a flood, where every item arrives at
// the start), queue wait included. The first line of each scenario is the
// best fixed limit's, named fixed-N.
//
// Then it judges one worker budget for a chain's stages (compose.WithWorkers
// in the simulator: 12 workers shared by three parallel stages, re-allocated
// every 50 ms by the highest-averages rule) against every static split of
// those workers and the equal one, on steady chains and on chains whose
// bottleneck moves, a line per scenario:
//
//	scenario=NAME budget=ITEMS/S best-static=SPLIT:ITEMS/S equal=ITEMS/S ratio-best=PCT gain-equal=PCT
//
// With -plot DIR it writes DIR/NAME.png for each scenario: the limit over
// time for each controller, and below it the items waiting (in the agent's
// input queue, and arrived but not yet let in) or, under a flood, whose
// backlog is endless and keeps the queue full, the throughput; and
// DIR/budget-NAME.png, the workers and the queue of each stage over time;
// it prints the path of each file to stderr. With -markdown it
// prints the results as markdown tables, a column per scenario. With -sweep
// it runs, instead, a grid of settings for each baseline in every scenario,
// and prints each setting's mean and worst efficiency over the scenarios,
// then the setting with the best mean for each baseline: those are the ones
// controllers() gives them.
//
// Usage:
//
//	go run ./examples/backtest [-seed N] [-scale F] [-plot DIR] [-markdown] [-sweep]
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "backtest:", err)
		os.Exit(1)
	}
}

// run parses args, runs the backtest and prints its lines to w, and the
// path of each plot it writes to log.
func run(args []string, w, log io.Writer) error {
	fs := flag.NewFlagSet("backtest", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the error is returned, and printed by main
	seed := fs.Uint64("seed", 1, "seed of the simulator and of the agents' random sources")
	scale := fs.Float64("scale", 1, "multiplies every scenario's duration")
	dir := fs.String("plot", "", "write a PNG per scenario to this directory")
	tune := fs.Bool("sweep", false, "run every baseline's grid of settings instead, and print how each did and the ones chosen")
	md := fs.Bool("markdown", false, "print the results as markdown tables, a column per scenario, instead of a line per run")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(w)
		fs.PrintDefaults()
		return nil
	} else if err != nil {
		return err
	}
	if !(*scale > 0 && *scale <= 100) {
		return fmt.Errorf("scale must be above 0 and at most 100, got %v", *scale)
	}
	if *tune {
		return sweep(scenarios(*scale), families(), *seed, w)
	}
	reports, err := backtest(scenarios(*scale), controllers(), *seed)
	if err != nil {
		return err
	}
	if *md {
		markdown(reports, w)
	}
	for _, r := range reports {
		for _, l := range r.lines() {
			if !*md {
				fmt.Fprintln(w, l)
			}
		}
		if *dir != "" {
			path, err := draw(r, *dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(log, "backtest: wrote %s\n", path)
		}
	}
	if *md {
		return nil
	}
	// One worker budget for a chain's stages, against every static split.
	return budgetReport(w, log, *seed, *scale, *dir)
}
