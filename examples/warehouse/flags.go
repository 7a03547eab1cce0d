package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"

	"github.com/evolvekit/evolve/parallel"
)

// config is what the command line asks for.
type config struct {
	records  int     // records to load, ids 1 to records
	rate     float64 // requests a second the loader makes
	apiRate  float64 // requests a second the API lets through; 0 means rate
	parallel int     // GETs at once
	batch    int     // records per file
	out      string  // directory of the batch files; "" for a new temporary one
	state    string  // directory of the durable state (batch files and queue); "" for none
	fail     float64 // share of the requests let through that the API fails with 503
	metrics  string  // where to serve the agents' metrics to Prometheus; "" for nowhere
	seed     uint64  // of the API's failures and the retries' jitter

	retry parallel.Retry // not a flag
}

// defaults returns the configuration of a bare `warehouse`.
func defaults() config {
	return config{records: 2000, rate: 200, parallel: 8, batch: 100, fail: 0.02, seed: 1, retry: retry(1)}
}

// Bounds of the flags' values.
const (
	maxRecords  = 10_000_000
	maxRate     = 100_000
	maxParallel = 1000
	maxBatch    = 1_000_000
)

const usageText = `usage: warehouse [flags]

Loads records 1 to -records from an HTTP API into files of -batch records
each (NDJSON, one record a line). The program starts the API itself, on
127.0.0.1: it lets -api-rate requests a second through (bursts of a fifth
of a second's worth), answers 429 Too Many Requests beyond that, takes
20ms to answer, and fails a share (-fail) of the requests it lets through
with 503 Service Unavailable.

The loader is a chain of agents: a rate agent at -rate requests a second,
a parallel agent making -parallel GETs at once (a 429, a 5xx or no answer
is retried after a backoff, up to 8 requests, and every retry waits for a
token of the rate agent, as a first request does), and a buffer agent
writing a file per batch. It prints the records loaded, the retries, the
records that failed for good (the dead letters), the 429s received (the
goal is none), the most requests the API saw in one second, the time
taken beside the least possible (-records / -rate), and the peak memory;
then it reads the files back and checks that every id is in them exactly
once, but the dead letters. Progress goes to stderr.

flags:
  -records N    records to load (default 2000)
  -rate R       requests a second the loader makes; fractions allowed (default 200)
  -api-rate R   requests a second the API lets through (default: -rate; set it
                lower to see 429s and retries)
  -parallel N   GETs at once (default 8)
  -batch N      records per file (default 100)
  -fail P       share of the requests the API fails with 503, from 0 to 1
                (default 0.02)
  -metrics ADDR serve the agents' metrics at http://ADDR/metrics, for
                Prometheus (host:port; port 0 picks one)
  -out DIR      where to write the files; created if need be, and must not hold
                batch files already (default: a new temporary directory)
  -state DIR    keep the load in DIR, so that a run killed at any moment and
                run again with the same flags resumes: the batch files go in
                DIR/batches, the ids still to load in a durable queue in
                DIR/queue (NATS JetStream, embedded); it prints how many records
                it found already loaded, and loads only the rest
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
	fs := flag.NewFlagSet("warehouse", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the error is returned, and printed by main
	fs.IntVar(&cfg.records, "records", cfg.records, "")
	fs.Float64Var(&cfg.rate, "rate", cfg.rate, "")
	fs.Float64Var(&cfg.apiRate, "api-rate", cfg.apiRate, "")
	fs.IntVar(&cfg.parallel, "parallel", cfg.parallel, "")
	fs.IntVar(&cfg.batch, "batch", cfg.batch, "")
	fs.StringVar(&cfg.out, "out", cfg.out, "")
	fs.StringVar(&cfg.state, "state", cfg.state, "")
	fs.Float64Var(&cfg.fail, "fail", cfg.fail, "")
	fs.StringVar(&cfg.metrics, "metrics", cfg.metrics, "")
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usageText)
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
	if cfg.apiRate == 0 {
		cfg.apiRate = cfg.rate
	}
	return cfg, nil
}

// check reports the first value of c that is out of range.
func (c config) check() error {
	switch {
	case c.records < 1 || c.records > maxRecords:
		return fmt.Errorf("-records must be between 1 and %d, got %d", maxRecords, c.records)
	case !validRate(c.rate):
		return fmt.Errorf("-rate must be above 0 and at most %d, got %v", maxRate, c.rate)
	case c.apiRate != 0 && !validRate(c.apiRate):
		return fmt.Errorf("-api-rate must be above 0 and at most %d, got %v", maxRate, c.apiRate)
	case c.parallel < 1 || c.parallel > maxParallel:
		return fmt.Errorf("-parallel must be between 1 and %d, got %d", maxParallel, c.parallel)
	case c.batch < 1 || c.batch > maxBatch:
		return fmt.Errorf("-batch must be between 1 and %d, got %d", maxBatch, c.batch)
	case !(c.fail >= 0 && c.fail <= 1):
		return fmt.Errorf("-fail must be between 0 and 1, got %v", c.fail)
	case c.state != "" && c.out != "":
		return errors.New("-state and -out do not go together: with -state the files are in DIR/batches")
	}
	return nil
}

// validRate reports whether r is a rate the flags accept.
func validRate(r float64) bool { return r > 0 && r <= maxRate && !math.IsNaN(r) }
