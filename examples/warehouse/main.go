// Command warehouse loads records from a rate-limited HTTP API into batch
// files, with a chain of agents, and shows that pacing the requests at the
// API's own limit gets every record without a single 429. Run it with -h
// for its flags (usageText).
//
// It starts the API itself (unless -api): GET /records/{id} on 127.0.0.1,
// -api-rate requests a second (golang.org/x/time/rate), 429 beyond it, 20
// ms an answer, and 503 for a share (-fail) of the requests it lets
// through. The loader is a chain of agents (package compose):
//
//	ids 1..N -> rate agent: -rate a second, bursts of a quarter of the API's
//	         -> parallel agent: -parallel GETs at once, each within 10 s; a
//	            429, a 5xx or no answer is retried after a backoff (50 ms
//	            doubling to 2 s, full jitter, at least what a Retry-After
//	            asks), up to 8 requests
//	         -> buffer agent: batches of -batch records, each written to a
//	            file batch-NNNNNN.ndjson, one JSON record a line
//
// Every retry waits for a token of the rate agent, so the loader sends the
// API no more than -rate. A record that fails for good goes to the dead
// letters, listed, and the exit status is 1. It prints what it did (the
// goal: no 429) and checks that the files hold every id exactly once.
//
// With -state DIR the load survives a crash: the ids wait in a durable
// queue in DIR (package durable, embedded), each acknowledged once its
// record is in a file; killed and run again with the same flags, it loads
// only the rest, every record once. The rate agent then takes its tokens
// from a limit kept with the queue (durable's Queue.Limit).
//
// # A fleet
//
// With -listen, the process lets others -join its queue (on the loopback,
// or anywhere with mutual TLS: -tls-ca, -tls-cert, -tls-key); each takes
// ids as it can, into files of its own, and -rate is their rate together,
// a limit they share. The serving process fills its queue before it
// listens, and at its end waits for the queue to be empty, every id
// acknowledged, and for its joiners to leave (see fleet). On one machine,
// the joiners sending to the first one's API, and the check of the whole
// load (checkCommand):
//
//	go run ./examples/warehouse -records 20000 -rate 300 -state /tmp/wh1 -listen 127.0.0.1:4222 -api-listen 127.0.0.1:8080
//	go run ./examples/warehouse -join nats://127.0.0.1:4222 -api http://127.0.0.1:8080 -rate 300 -state /tmp/wh2
//	go run ./examples/warehouse -join nats://127.0.0.1:4222 -api http://127.0.0.1:8080 -rate 300 -out /tmp/wh3
//	go run ./examples/warehouse check -records 20000 /tmp/wh1 /tmp/wh2 /tmp/wh3
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
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
// the files; or, for `check`, checks the files of several processes
// (checkCommand).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "check" {
		return checkCommand(args[1:], stdout)
	}
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
// A new temporary directory it made is removed if the run fails with
// nothing in it.
func warehouse(ctx context.Context, cfg config, fs faults, stdout, stderr io.Writer) (err error) {
	stderr = zerolog.SyncWriter(stderr) // progress and the agents' log share it
	metrics, srv, stopMetrics, err := promserve.Option(cfg.metrics)
	if err != nil {
		return fmt.Errorf("-metrics: %w", err)
	}
	defer stopMetrics(context.Background())
	dir, st, err := prepare(cfg, stdout)
	if err != nil {
		return err
	}
	if cfg.out == "" && cfg.state == "" {
		defer func() {
			if err != nil {
				os.Remove(dir) // refused, as it should be, if the run wrote there
			}
		}()
	}
	a, url, err := openAPI(cfg, fs, stdout)
	if err != nil {
		return err
	}
	if a != nil {
		defer closeAPI(a, stderr)
	}
	if srv != nil {
		fmt.Fprintf(stdout, "warehouse: the agents' metrics are at %s\n", srv.URL())
	}
	what := map[bool]string{false: fmt.Sprintf("%d records", cfg.records), true: "the queue's records"}[cfg.join != ""]
	fmt.Fprintf(stdout, "warehouse: loading %s: rate agent at %g a second (bursts of %d) -> %d GETs at once -> files of %d records in %s\n",
		what, cfg.rate, loaderBurst(cfg.rate), cfg.parallel, cfg.batch, dir)

	f := newFetcher(url, cfg.parallel)
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
	err = loadOn(ctx, l, st, cfg, stdout, stderr, metrics)
	elapsed := time.Since(start)
	stopWatching()
	if ctx.Err() != nil {
		if cfg.state != "" {
			return fmt.Errorf("interrupted after %v: %d records loaded into %s in this run; run again with -state %s to load the rest", elapsed.Round(time.Millisecond), l.loaded.Load(), dir, cfg.state)
		}
		return fmt.Errorf("interrupted after %v: %d%s records loaded into %s", elapsed.Round(time.Millisecond), l.loaded.Load(), ofN(cfg.records), dir)
	}
	if dl := new(agent.DeadLettersError); err != nil && !errors.As(err, &dl) {
		return err // the load could not run, or the queue failed it
	}
	summarize(stdout, cfg, l, cmp.Or(st, &state{}), a, elapsed, mem.peak.Load())
	dead := l.dead.byID()
	if st != nil {
		var before int
		dead, before = st.deadLetters()
		if before > 0 {
			fmt.Fprintf(stdout, "warehouse: %d records failed for good in earlier runs; they count below\n", before)
		}
	}
	reportDeadLetters(stdout, dead)
	if len(dead) > 0 {
		err = fmt.Errorf("%d records failed for good", len(dead))
	}
	return errors.Join(err, verify(stdout, dir, cfg.records, dead, l.share))
}

// prepare returns the directory of the batch files, and the state of a
// durable load (a joiner's without -state is in that directory), or nil.
func prepare(cfg config, stdout io.Writer) (string, *state, error) {
	if cfg.state != "" {
		st, err := openState(cfg.state, filepath.Join(cfg.state, batchesDir))
		if err != nil {
			return "", nil, fmt.Errorf("-state: %w", err)
		}
		fmt.Fprintf(stdout, "warehouse: found %d records already loaded in %s\n", len(st.loaded), cfg.state)
		return st.out, st, nil
	}
	dir, err := prepareOut(cfg.out)
	if err != nil {
		return "", nil, fmt.Errorf("-out: %w", err)
	}
	if cfg.join == "" {
		return dir, nil, nil
	}
	st, err := openState(dir, dir)
	return dir, st, err
}

// openAPI starts the API, and returns it and its URL; with cfg.api, it
// starts none, and returns nil and that URL.
func openAPI(cfg config, fs faults, stdout io.Writer) (*api, string, error) {
	if cfg.api != "" {
		fmt.Fprintf(stdout, "warehouse: the API at %s is another process's\n", cfg.api)
		return nil, cfg.api, nil
	}
	a, err := startAPI(apiConfig{listen: cfg.apiListen, records: cfg.records, rate: cfg.apiRate, latency: latency, faults: fs})
	if err != nil {
		return nil, "", err
	}
	fmt.Fprintf(stdout, "warehouse: the API at %s lets %g requests a second through (bursts of %d), answers in %v, and %s\n",
		a.url, cfg.apiRate, burst(cfg.apiRate), latency, fs.about)
	return a, a.url, nil
}

// loadOn runs l on a runtime of its own, made with metrics, through the
// durable queue of st if not nil, and shuts the runtime down.
func loadOn(ctx context.Context, l *loader, st *state, cfg config, stdout, stderr io.Writer, metrics agent.Option) error {
	rt := agent.NewRuntime(metrics, agent.WithLogger(zerolog.New(zerolog.SyncWriter(stderr)).Level(zerolog.WarnLevel).With().Timestamp().Logger()))
	var err error
	if st != nil {
		err = l.loadDurable(ctx, rt, st, cfg, stdout)
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

// summarize prints what the load did, in this run if it resumes one st
// found begun; what the API did, if it is this process's.
func summarize(w io.Writer, cfg config, l *loader, st *state, a *api, elapsed time.Duration, peak uint64) {
	resumed := map[bool]string{true: fmt.Sprintf(", by this run: it resumed a load that had %d records loaded already", st.found)}[st.found > 0]
	fmt.Fprintf(w, "records loaded:  %d%s, in %d files%s\n", l.loaded.Load(), ofN(cfg.records), l.out.written.Load()-l.out.before, resumed)
	fmt.Fprintf(w, "requests:        %d\n", l.f.requests.Load())
	fmt.Fprintf(w, "retries:         %d (after a 429, a 5xx or no answer, with backoff; %d took a token of the rate agent)\n", l.retried, l.granted)
	fmt.Fprintf(w, "429s received:   %d (goal: 0)\n", l.f.tooMany.Load())
	fmt.Fprintf(w, "5xx received:    %d\n", l.f.serverErrors.Load())
	if a != nil {
		fmt.Fprintf(w, "busiest second:  %d requests at the API (its limit: %g a second, bursts of %d)\n", a.busiest(), cfg.apiRate, burst(cfg.apiRate))
	}
	fmt.Fprintf(w, "elapsed:         %v", elapsed.Round(time.Millisecond))
	if n, r := cfg.records-st.found-st.before, min(cfg.rate, cfg.apiRate); n > 0 { // a joiner's records is 0
		left := map[bool]string{true: " left"}[n < cfg.records]
		fmt.Fprintf(w, " (least possible: %v, %d records%s at %g a second)", time.Duration(float64(n)/r*float64(time.Second)).Round(time.Millisecond), n, left, r)
	}
	if st.died > 0 {
		fmt.Fprintf(w, "\nslow start:      the last run died loading: this one had no token until that run's share of the -rate limit kept with the queue lapsed (about 3s), then loaded each of the up to %d ids it held alone, no other GET beside it, so that an id that kills the process is found (durable's crash isolation): at most %.0f a second, a GET taking %v",
			st.died, float64(time.Second/latency), latency)
	}
	fmt.Fprintf(w, "\npeak memory:     %.1f MiB of Go heap in objects (sampled every %v", mib(peak), memoryEvery)
	if a == nil {
		fmt.Fprintln(w, ")")
		return
	}
	fmt.Fprintln(w, ", API server included)")
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
	return fmt.Sprintf("%d %s%s", n, noun, map[bool]string{true: "s"}[n != 1])
}

// verify reads the files back, checks that every id is there exactly once
// (the dead letters excepted), and prints the outcome; for a share of a
// load, which other processes loaded records of too, that no id is there
// twice, and every line is a record.
func verify(w io.Writer, dir string, n int, failed map[int]agent.DeadLetter, share bool) error {
	t, err := readBack(dir)
	if err == nil && share {
		err = t.report(n, 0, nil, nil)
	} else if err == nil {
		err = t.check(n, failed, 0)
	}
	if err != nil {
		fmt.Fprintf(w, "check:           FAILED\n")
		return fmt.Errorf("check of %s: %w", dir, err)
	}
	if share {
		fmt.Fprintf(w, "check:           %d records in %d files, each once; warehouse check checks the whole load\n", t.records, t.files)
		return nil
	}
	fmt.Fprintf(w, "check:           every id from 1 to %d is in %d files exactly once", n, t.files)
	if len(failed) > 0 {
		fmt.Fprintf(w, ", but the %d dead letters, which are in none", len(failed))
	}
	fmt.Fprintln(w)
	return nil
}
