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
// it prints the path of each file to stderr. DIR is made if need be, and
// checked writable before the run, which takes half a minute. With
// -markdown it prints the results as markdown tables, a column per
// scenario. With -sweep it runs, instead, a grid of settings for each
// baseline in every scenario, and prints each setting's mean and worst
// efficiency over the scenarios, then the setting with the best mean for
// each baseline: those are the ones controllers() gives them.
//
// Usage:
//
//	go run ./examples/backtest [-seed N] [-scale F] [-plot DIR] [-markdown] [-sweep]
//
// A bad flag, a value out of range or a stray argument exits 2, with the
// reason; -h prints the flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(exitCode(run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// exitCode writes err to stderr, if any, and returns the exit status: 0
// for none, 2 for a command line that cannot be run, 1 for anything else.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "backtest: %v\n", err)
	if errors.As(err, new(flagError)) {
		fmt.Fprintln(stderr, "run backtest -h for the flags")
		return 2
	}
	return 1
}

// usageText is what -h prints.
const usageText = `usage: backtest [flags]

Compares controllers of the adaptive agent, in the simulator, on the same
scenarios and seed, with the best fixed limit of each scenario: hill (the
agent's default) and the baselines santa, aimd, gradient2 and vegas (the
last three also windowed). It prints a line per scenario and controller
(efficiency, convergence, drift, p99), then judges one worker budget
shared by a chain's stages against every static split of the workers, a
line per scenario. See go doc for what each figure means. A bare run
takes about half a minute.

flags:
  -seed N      seed of the simulator and of the agents' random sources
               (default 1)
  -scale F     multiplies every scenario's duration, above 0 and at most
               100 (default 1)
  -plot DIR    write a PNG per scenario to DIR, created if need be, and
               print the path of each to stderr
  -markdown    print the results as markdown tables, a column per
               scenario, instead of a line per run
  -sweep       run every baseline's grid of settings instead, and print
               how each did and the ones chosen; not with -plot or
               -markdown
`

// flagError is a command line that cannot be run: a bad flag, or a value
// out of range.
type flagError struct{ err error }

// Error returns the error's message.
func (e flagError) Error() string { return e.err.Error() }

// Unwrap returns the error underneath.
func (e flagError) Unwrap() error { return e.err }

// config is what the command line asks for.
type config struct {
	seed      uint64
	scale     float64
	dir       string // where to write the plots; "" for none
	sweep, md bool
}

// parseFlags reads the command line. For -h it writes the usage to stdout
// and returns flag.ErrHelp; for anything it cannot run it returns a
// flagError naming the flag and the value.
func parseFlags(args []string, stdout io.Writer) (config, error) {
	cfg := config{seed: 1, scale: 1}
	fs := flag.NewFlagSet("backtest", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the error is returned, and printed by main
	fs.Uint64Var(&cfg.seed, "seed", cfg.seed, "")
	fs.Float64Var(&cfg.scale, "scale", cfg.scale, "")
	fs.StringVar(&cfg.dir, "plot", cfg.dir, "")
	fs.BoolVar(&cfg.sweep, "sweep", false, "")
	fs.BoolVar(&cfg.md, "markdown", false, "")
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usageText)
		return cfg, err
	}
	switch {
	case err != nil:
	case fs.NArg() > 0:
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case !(cfg.scale > 0 && cfg.scale <= 100):
		err = fmt.Errorf("-scale must be above 0 and at most 100, got %v", cfg.scale)
	case cfg.sweep && (cfg.dir != "" || cfg.md):
		err = errors.New("-sweep does not go with -plot or -markdown: it prints the settings' efficiencies, and draws nothing")
	}
	if err != nil {
		return cfg, flagError{err}
	}
	return cfg, nil
}

// writable makes dir if need be, and checks that a file can be written
// in it, so that a -plot that cannot be written is reported before the
// run rather than after it.
func writable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("-plot: %w", err)
	}
	f, err := os.CreateTemp(dir, ".backtest-*")
	if err != nil {
		return fmt.Errorf("-plot: %w", err)
	}
	return errors.Join(f.Close(), os.Remove(f.Name()))
}

// run parses args, runs the backtest and prints its lines to w, and the
// path of each plot it writes to log.
func run(args []string, w, log io.Writer) error {
	cfg, err := parseFlags(args, w)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	if cfg.dir != "" {
		if err := writable(cfg.dir); err != nil {
			return err
		}
	}
	if cfg.sweep {
		return sweep(scenarios(cfg.scale), families(), cfg.seed, w)
	}
	reports, err := backtest(scenarios(cfg.scale), controllers(), cfg.seed)
	if err != nil {
		return err
	}
	if cfg.md {
		markdown(reports, w)
	}
	for _, r := range reports {
		for _, l := range r.lines() {
			if !cfg.md {
				fmt.Fprintln(w, l)
			}
		}
		if cfg.dir != "" {
			path, err := draw(r, cfg.dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(log, "backtest: wrote %s\n", path)
		}
	}
	if cfg.md {
		return nil
	}
	// One worker budget for a chain's stages, against every static split.
	return budgetReport(w, log, cfg.seed, cfg.scale, cfg.dir)
}
