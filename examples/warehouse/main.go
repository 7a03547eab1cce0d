// Command warehouse loads records from a rate-limited HTTP API into batch
// files, with a chain of agents, and shows that pacing the requests at the
// API's own limit gets every record without a single 429.
//
// The program starts the API itself: a net/http server on 127.0.0.1 that
// serves GET /records/{id} as JSON, lets -api-rate requests a second
// through (golang.org/x/time/rate, bursts of a fifth of a second's worth;
// -api-rate is -rate unless set), answers 429 Too Many Requests beyond it,
// takes 20 ms to answer, and fails a share (-fail, 2% unless set) of the
// requests it lets through with 503 Service Unavailable: those count
// against its limit too.
//
// The loader is a chain of agents (package compose):
//
//	ids 1..N -> rate agent: -rate a second, bursts of a quarter of the API's
//	         -> parallel agent: -parallel GETs at once, each within 10 s; a
//	            429, a 5xx or no answer is retried after a backoff (up to
//	            50 ms doubling to 2 s, full jitter, at least what a
//	            Retry-After asks), up to 8 requests
//	         -> buffer agent: batches of -batch records, each written to a
//	            file batch-NNNNNN.ndjson in -out, one JSON record a line
//
// The retries, the timeout and the list of what failed are the library's
// (parallel.Config's Retry and Timeout, compose.WithDeadLetters), and every
// retry waits for a token of the rate agent in front, as a first request
// does: retries included, the loader sends the API no more than -rate.
// Backpressure flows back up the chain, so the ids wait in the rate agent,
// not in memory all at once. A record that fails for good (8 failed
// requests, or an answer that will not change, or a batch file that could
// not be written) goes to the dead letters, which are listed, and the
// program exits with status 1.
//
// It prints the records loaded, the retries, the dead letters, the 429s
// received (the goal is 0), the most requests the API received in any one
// second, how long it took beside the least possible (-records at the
// lower of -rate and -api-rate), and the peak memory: the most Go heap held
// by objects (the runtime/metrics /memory/classes/heap/objects:bytes,
// sampled every 10 ms), API server included, since it runs in the same
// process. Then it reads the files back and checks that every id appears
// in them exactly once, but the dead letters. Progress goes to stderr
// every second.
//
//	go run ./examples/warehouse [-records 2000] [-rate 200] [-parallel 8] [-batch 100] [-fail 0.02] [-out DIR | -state DIR] [-api-rate R] [-metrics ADDR]
//
// With -state DIR the load survives a crash: the ids still to load wait in
// a durable queue in DIR/queue (package durable: NATS JetStream, embedded
// in the process), the batch files go in DIR/batches, each written whole or
// not at all (a temporary file, renamed), and an id is acknowledged to the
// queue only once its record is in a file. Killed with SIGKILL at any
// moment and run again with the same flags, it prints how many records it
// found already loaded, loads only the rest (skipping a record a file
// already holds, should the queue hand it out again), and its check finds
// every record in the files exactly once. A record that fails for good is
// written to DIR/dead-letters.ndjson before the queue lets it go: a later
// run adds it to the queue no more, lists it with its own, and its check
// expects it in no file.
//
// With -metrics it serves the agents' metrics (see agent.WithMeterProvider)
// at http://ADDR/metrics for Prometheus while it runs.
//
// Set -fail 0.1 to see a tenth of the requests fail and be retried within
// the API's limit; set -api-rate below -rate to see 429s, and the retries
// that still load every record.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/promserve"
	"github.com/rs/zerolog"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitCode writes err to stderr, if any, and returns the exit status: 0
// for none, 2 for a command line that cannot be run, 1 for anything else.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "warehouse: %v\n", err)
	if errors.As(err, new(flagError)) {
		fmt.Fprintln(stderr, "run warehouse -h for the flags")
		return 2
	}
	return 1
}

// run is the whole program: it reads args, starts the API, loads the
// records, prints what happened to stdout and progress to stderr, and checks
// the files.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	return warehouse(ctx, cfg, randomFaults(cfg.fail, cfg.seed), stdout, stderr)
}

// latency is how long the API takes to answer a record.
const latency = 20 * time.Millisecond

// warehouse loads cfg.records records from an API with the faults given.
func warehouse(ctx context.Context, cfg config, fs faults, stdout, stderr io.Writer) error {
	stderr = zerolog.SyncWriter(stderr) // progress and the agents' log share it
	var st *state
	var dir string
	var err error
	if cfg.state != "" {
		if st, err = openState(cfg.state); err != nil {
			return fmt.Errorf("-state: %w", err)
		}
		dir = st.out
		fmt.Fprintf(stdout, "warehouse: found %d records already loaded in %s\n", len(st.loaded), cfg.state)
	} else if dir, err = prepareOut(cfg.out); err != nil {
		return fmt.Errorf("-out: %w", err)
	}
	metrics, srv, stopMetrics, err := promserve.Option(cfg.metrics)
	if err != nil {
		return fmt.Errorf("-metrics: %w", err)
	}
	defer stopMetrics(context.Background())
	a, err := startAPI(apiConfig{records: cfg.records, rate: cfg.apiRate, latency: latency, faults: fs})
	if err != nil {
		return err
	}
	defer closeAPI(a, stderr)
	fmt.Fprintf(stdout, "warehouse: the API at %s lets %g requests a second through (bursts of %d), answers in %v, and %s\n",
		a.url, cfg.apiRate, burst(cfg.apiRate), latency, fs.about)
	if srv != nil {
		fmt.Fprintf(stdout, "warehouse: the agents' metrics are at %s\n", srv.URL())
	}
	fmt.Fprintf(stdout, "warehouse: loading %d records: rate agent at %g a second (bursts of %d) -> %d GETs at once -> files of %d records in %s\n",
		cfg.records, cfg.rate, loaderBurst(cfg.rate), cfg.parallel, cfg.batch, dir)

	f := newFetcher(a.url, cfg.parallel)
	defer f.close()
	l := &loader{n: cfg.records, rate: cfg.rate, parallel: cfg.parallel, batch: cfg.batch, retry: cfg.retry, f: f, out: &files{dir: dir}}
	if st != nil {
		if l.out, err = st.files(); err != nil {
			return fmt.Errorf("-state: %w", err)
		}
	}
	var mem peakMemory
	start := time.Now()
	stopWatching := background(mem.watch, func(quit <-chan struct{}) { l.watch(stderr, start, time.Second, quit) })
	err = loadOn(ctx, l, st, stdout, stderr, metrics)
	elapsed := time.Since(start)
	stopWatching()
	if ctx.Err() != nil {
		if st != nil {
			return fmt.Errorf("interrupted after %v: %d records loaded into %s in this run; run again with -state %s to load the rest", elapsed.Round(time.Millisecond), l.loaded.Load(), dir, cfg.state)
		}
		return fmt.Errorf("interrupted after %v: %d of %d records loaded into %s", elapsed.Round(time.Millisecond), l.loaded.Load(), cfg.records, dir)
	}
	summarize(stdout, cfg, l, a, elapsed, mem.peak.Load())
	dead := l.dead.byID()
	if st != nil {
		var before int
		dead, before = st.deadLetters()
		if before > 0 {
			fmt.Fprintf(stdout, "warehouse: %d records failed for good in earlier runs; they count below\n", before)
		}
	}
	reportDeadLetters(stdout, dead)
	return errors.Join(failure(err, dead), verify(stdout, dir, cfg.records, dead))
}

// loadOn runs l on a runtime of its own, made with metrics, through the
// durable queue of st if not nil, and shuts the runtime down.
func loadOn(ctx context.Context, l *loader, st *state, stdout, stderr io.Writer, metrics agent.Option) error {
	rt := agent.NewRuntime(metrics, agent.WithLogger(zerolog.New(zerolog.SyncWriter(stderr)).Level(zerolog.WarnLevel).With().Timestamp().Logger()))
	var err error
	if st != nil {
		err = l.loadDurable(ctx, rt, st, stdout)
	} else {
		err = l.load(ctx, rt)
	}
	sctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	return errors.Join(err, rt.Shutdown(sctx))
}

// closeAPI stops the API, waiting for the requests under way.
func closeAPI(a *api, stderr io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	if err := a.close(ctx); err != nil {
		fmt.Fprintf(stderr, "warehouse: stopping the API: %v\n", err)
	}
}

// summarize prints what the load did.
func summarize(w io.Writer, cfg config, l *loader, a *api, elapsed time.Duration, peak uint64) {
	least := float64(cfg.records) / min(cfg.rate, cfg.apiRate)
	fmt.Fprintf(w, "records loaded:  %d of %d, in %d files\n", l.loaded.Load(), cfg.records, l.out.written.Load())
	fmt.Fprintf(w, "requests:        %d\n", l.f.requests.Load())
	fmt.Fprintf(w, "retries:         %d (after a 429, a 5xx or no answer, with backoff; %d took a token of the rate agent)\n", l.retried, l.granted)
	fmt.Fprintf(w, "429s received:   %d (goal: 0)\n", l.f.tooMany.Load())
	fmt.Fprintf(w, "5xx received:    %d\n", l.f.serverErrors.Load())
	fmt.Fprintf(w, "busiest second:  %d requests at the API (its limit: %g a second, bursts of %d)\n", a.busiest(), cfg.apiRate, burst(cfg.apiRate))
	fmt.Fprintf(w, "elapsed:         %v (least possible: %v, %d records at %g a second)\n",
		elapsed.Round(time.Millisecond), time.Duration(least*float64(time.Second)).Round(time.Millisecond), cfg.records, min(cfg.rate, cfg.apiRate))
	fmt.Fprintf(w, "peak memory:     %.1f MiB of Go heap in objects (sampled every %v, API server included)\n", mib(peak), memoryEvery)
	fmt.Fprintf(w, "the API:         %d requests, %d records served, %d 429s and %d 5xx answered\n",
		a.requests.Load(), a.served.Load(), a.limited.Load(), a.failed.Load())
}

// listed is how many dead letters reportDeadLetters lists, a line each.
const listed = 20

// reportDeadLetters prints the records that failed for good, a line each
// for the first few by id: its error and its attempts.
func reportDeadLetters(w io.Writer, dead map[int]agent.DeadLetter) {
	fmt.Fprintf(w, "dead letters:    %d\n", len(dead))
	ids := slices.Sorted(maps.Keys(dead))
	for _, id := range ids[:min(len(ids), listed)] {
		d := dead[id]
		fmt.Fprintf(w, "  %v (%s, after %s)\n", d.Err, d.Agent, plural(d.Attempts, "attempt"))
	}
	if len(ids) > listed {
		fmt.Fprintf(w, "  ... and %d more\n", len(ids)-listed)
	}
}

// plural returns n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// failure returns the error of a load that lost records, or err.
func failure(err error, dead map[int]agent.DeadLetter) error {
	if len(dead) > 0 {
		return fmt.Errorf("%d records failed for good", len(dead))
	}
	return err
}

// verify reads the files back, checks that every id is there exactly once
// (the dead letters excepted), and prints the outcome.
func verify(w io.Writer, dir string, n int, failed map[int]agent.DeadLetter) error {
	t, err := readBack(dir)
	if err == nil {
		err = t.check(n, failed)
	}
	if err != nil {
		fmt.Fprintf(w, "check:           FAILED\n")
		return fmt.Errorf("check of %s: %w", dir, err)
	}
	fmt.Fprintf(w, "check:           every id from 1 to %d is in %d files exactly once", n, t.files)
	if len(failed) > 0 {
		fmt.Fprintf(w, ", but the %d dead letters, which are in none", len(failed))
	}
	fmt.Fprintln(w)
	return nil
}
