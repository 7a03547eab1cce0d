// Command backtest compares controllers of the adaptive agent in the
// simulator, on the same scenarios and with the same seed, against the best
// fixed limit for each scenario: adaptive.Hill, the agent's default, and
// three baselines kept here, written as any controller outside package
// adaptive would be (Santa, the algorithm the adaptive agent descends from,
// and AIMD and Gradient2, after Netflix's concurrency-limits library). It
// prints one line per scenario and controller:
//
//	scenario=NAME controller=NAME efficiency=PCT converge=N drift=N p99=DURATION
//
// efficiency is throughput as a percentage of the best fixed limit's;
// converge is the completions until throughput stays within 5% of its final
// value (counted from the capacity step, or from the start of light load,
// in the scenarios that have one); drift is the largest rise of the limit
// under light load (measured in the light scenario only; 0 elsewhere); p99
// is the 99th percentile of service time, from the start of a piece of work
// to its end, queue wait excluded. The first line of each scenario is the
// best fixed limit's, named fixed-N.
//
// With -plot DIR it writes DIR/NAME.png for each scenario: the limit and the
// queue length (the items waiting: in the agent's input queue, and arrived
// but not yet let in) over time for each controller.
//
// Usage:
//
//	go run ./examples/backtest [-seed N] [-scale F] [-plot DIR]
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "backtest:", err)
		os.Exit(1)
	}
}

// run parses args, runs the backtest and prints its lines to w.
func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("backtest", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the error is returned, and printed by main
	seed := fs.Uint64("seed", 1, "seed of the simulator and of the agents' random sources")
	scale := fs.Float64("scale", 1, "multiplies every scenario's duration")
	dir := fs.String("plot", "", "write a PNG per scenario to this directory")
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
	reports, err := backtest(scenarios(*scale), *seed)
	if err != nil {
		return err
	}
	for _, r := range reports {
		for _, l := range r.lines() {
			fmt.Fprintln(w, l)
		}
		if *dir != "" {
			if err := draw(r, *dir); err != nil {
				return err
			}
		}
	}
	return nil
}
