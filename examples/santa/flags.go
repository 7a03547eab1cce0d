package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// config is what the command line asks for.
type config struct {
	duration time.Duration // how long jobs arrive, for each strategy
	interval time.Duration // between two batches
	maxBatch int           // the most jobs in a batch
	seed     uint64        // seeds the batch sizes
	limit    int           // the fixed strategy's limit
	job      time.Duration // how long one job should take on one core
	plot     string        // the PNG to write, if any
	metrics  string        // where to serve the agents' metrics; "" for nowhere
}

// defaults returns the configuration of a bare `santa`.
func defaults() config {
	return config{
		duration: 60 * time.Second,
		interval: time.Second,
		maxBatch: 60,
		seed:     1,
		limit:    runtime.NumCPU(),
		job:      50 * time.Millisecond,
	}
}

// Bounds of the flags' values.
const (
	maxDuration = 24 * time.Hour
	maxBatches  = 1_000_000
	maxJobs     = 10_000_000
	maxLimit    = 10_000
	minJob      = 10 * time.Microsecond
	maxJob      = 5 * time.Second
)

const usageText = `usage: santa [flags]

Batches of 0 to -max-batch identical jobs (each factorises a large prime by
trial division, about -job of work for one core) arrive every -interval:
more at once than the machine has cores. Three strategies handle the same
arrivals, one after another, each for -duration and then until its last job
is done (so a bare run takes about 4 minutes on 2 cores):

  naive     a goroutine per job, started as it arrives
  fixed     a parallel agent running at most -limit jobs at once
  adaptive  an adaptive agent, which learns its limit

Then it prints, for each: the jobs done, the 50th and 99th percentiles of
the time from a job's arrival to its completion, the largest queue, and the
mean and final parallelism (jobs running at once). Progress goes to stderr.

flags:
  -duration D    how long jobs arrive, for each strategy (default 1m0s)
  -interval D    time between two batches (default 1s)
  -max-batch N   the most jobs in a batch; each size from 0 to N is as likely (default 60)
  -seed N        seeds the batch sizes: the same seed, the same arrivals (default 1)
  -limit N       the fixed strategy's limit (default: the number of cores, %d)
  -job D         how long one job takes on one core, calibrated at start (default 50ms)
  -plot FILE     write a PNG of the queue and the parallelism over time for each strategy
  -metrics ADDR  serve the agents' metrics at http://ADDR/metrics, for Prometheus,
                 and a live page of the agents at http://ADDR/ (host:port; port 0 picks one)
`

// flagError is a command line that cannot be run: a bad flag, or a value out
// of range.
type flagError struct{ err error }

// Error returns the error's message.
func (e flagError) Error() string { return e.err.Error() }

// Unwrap returns the error underneath.
func (e flagError) Unwrap() error { return e.err }

// parseFlags reads the command line. For -h it writes the usage to stdout
// and returns flag.ErrHelp; for anything it cannot run it returns a
// flagError naming the flag and the value.
func parseFlags(args []string, stdout io.Writer) (config, error) {
	cfg := defaults()
	fs := flag.NewFlagSet("santa", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the error is returned, and printed by main
	fs.DurationVar(&cfg.duration, "duration", cfg.duration, "")
	fs.DurationVar(&cfg.interval, "interval", cfg.interval, "")
	fs.IntVar(&cfg.maxBatch, "max-batch", cfg.maxBatch, "")
	fs.Uint64Var(&cfg.seed, "seed", cfg.seed, "")
	fs.IntVar(&cfg.limit, "limit", cfg.limit, "")
	fs.DurationVar(&cfg.job, "job", cfg.job, "")
	fs.StringVar(&cfg.plot, "plot", cfg.plot, "")
	fs.StringVar(&cfg.metrics, "metrics", cfg.metrics, "")
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, usageText, runtime.NumCPU())
		return cfg, err
	}
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err == nil {
		err = cfg.check()
	}
	if err != nil {
		return cfg, flagError{err}
	}
	return cfg, nil
}

// check reports the first value of c that is out of range.
func (c config) check() error {
	switch {
	case c.duration <= 0 || c.duration > maxDuration:
		return fmt.Errorf("-duration must be above 0 and at most %v, got %v", maxDuration, c.duration)
	case c.interval <= 0:
		return fmt.Errorf("-interval must be above 0, got %v", c.interval)
	case c.duration/c.interval >= maxBatches:
		return fmt.Errorf("-interval %v makes %d batches in -duration %v; at most %d", c.interval, c.duration/c.interval, c.duration, maxBatches)
	case c.maxBatch < 0:
		return fmt.Errorf("-max-batch must not be negative, got %d", c.maxBatch)
	case c.maxBatch > maxJobs/c.batches():
		return fmt.Errorf("-max-batch %d with %d batches could bring more than %d jobs", c.maxBatch, c.batches(), maxJobs)
	case c.limit < 1 || c.limit > maxLimit:
		return fmt.Errorf("-limit must be between 1 and %d, got %d", maxLimit, c.limit)
	case c.job < minJob || c.job > maxJob:
		return fmt.Errorf("-job must be between %v and %v, got %v", minJob, maxJob, c.job)
	case c.plot != "" && !strings.EqualFold(filepath.Ext(c.plot), ".png"):
		return fmt.Errorf("-plot must name a .png file, got %q", c.plot)
	}
	return nil
}

// batches returns the number of batches in a run.
func (c config) batches() int { return int((c.duration + c.interval - 1) / c.interval) }
