// Command santa is Santa's mailbox: letters arrive in batches, each one a
// job that keeps a core busy, more at once than the machine has cores. It
// runs three strategies on the same arrivals and shows what each does to the
// queue, the parallelism and the time a letter waits for its answer:
//
//   - naive starts a goroutine per job as soon as it arrives. Nothing
//     queues, but every job shares the cores with all the others, so a job
//     takes about as long as its whole batch.
//   - fixed posts the jobs to a parallel agent (package parallel) that runs
//     at most -limit at once, the number of cores by default.
//   - adaptive posts them to an adaptive agent (package adaptive), whose
//     controller learns the limit from the throughput it observes.
//
// A job factorises a large prime by trial division; at start the program
// picks the prime that takes about -job (50 ms) on one core here. Batches of
// 0 to -max-batch jobs (each size as likely) arrive every -interval, drawn
// from a PCG seeded with -seed, so every strategy sees the same batches at
// the same instants. The strategies run one after another, each for
// -duration, so that they do not fight over the cores; then each one's
// leftover jobs are finished, so none is lost. A bare run takes three
// minutes of arrivals and then the leftovers, about four minutes on two
// cores:
//
//	go run ./examples/santa [-duration 60s] [-interval 1s] [-max-batch 60] [-seed 1] [-limit N] [-job 50ms] [-plot FILE.png]
//
// It prints one line per strategy:
//
//   - jobs done, of those that arrived: all of them, as each run finishes
//     its leftovers;
//   - p50 and p99: percentiles of the time from a job's arrival to its
//     completion;
//   - largest queue: the most jobs that had arrived and not yet started,
//     whether in the agent's input queue or in the program's mailbox in front
//     of it (naive has none: it starts everything at once);
//   - mean parallelism: the jobs running at once, on average over the whole
//     run (the time each job ran, added up, over the run's length); final
//     parallelism: the jobs running at once over the last tenth of the
//     arrivals, from samples taken about 600 times over them: the level the
//     strategy settled at;
//   - limit: the agent's limit when the arrivals ended (the one the adaptive
//     agent learnt); naive has none;
//   - ended: when the run ended, from its start: at -duration, or when the
//     last leftover job was done; past -duration is the time it took to
//     finish the leftovers.
//
// With -plot it writes a PNG with a panel per strategy: jobs waiting, jobs
// running and the limit over time. Progress lines go to stderr while it runs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
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
	fmt.Fprintf(stderr, "santa: %v\n", err)
	if errors.As(err, new(flagError)) {
		fmt.Fprintln(stderr, "run santa -h for the flags")
		return 2
	}
	return 1
}

// run is the whole program: it reads args, runs the three strategies, prints
// the summary to stdout and progress to stderr, and writes the plot.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	stderr = zerolog.SyncWriter(stderr) // progress and the agents' log share it
	cfg, err := parseFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	png, err := createPlot(cfg.plot)
	if err != nil {
		return err
	}
	outs, err := compare(ctx, cfg, stdout, stderr)
	if err == nil {
		err = printSummary(stdout, outs)
	}
	return finishPlot(png, cfg.plot, outs, err, stdout)
}

// compare calibrates the job, then runs each strategy on the same arrivals,
// one after another.
func compare(ctx context.Context, cfg config, stdout, stderr io.Writer) ([]outcome, error) {
	w, err := calibrate(ctx, cfg.job)
	if err != nil {
		return nil, fmt.Errorf("calibrating -job %v: %w", cfg.job, err)
	}
	plan := arrivals(cfg.seed, cfg.duration, cfg.interval, cfg.maxBatch)
	n := total(plan)
	cores := runtime.GOMAXPROCS(0)
	load := float64(n) * w.took.Seconds() / cfg.duration.Seconds() / float64(cores)
	fmt.Fprintf(stdout, "santa: one job factorises the prime %d by trial division: %v on one core\n", w.prime, round(w.took))
	fmt.Fprintf(stdout, "santa: %d jobs in %d batches of 0 to %d, one every %v for %v (seed %d): %.0f%% of %d cores' time\n",
		n, len(plan), cfg.maxBatch, cfg.interval, cfg.duration, cfg.seed, 100*load, cores)
	fmt.Fprintf(stdout, "santa: 3 strategies, one after another on the same arrivals: about %v\n", 3*cfg.duration)

	metrics, srv, stopMetrics, err := promserve.Option(cfg.metrics)
	if err != nil {
		return nil, fmt.Errorf("-metrics: %w", err)
	}
	defer stopMetrics(context.Background())
	if srv != nil {
		fmt.Fprintf(stdout, "santa: the agents' metrics are at %s\n", srv.URL())
	}
	rt := agent.NewRuntime(metrics, agent.WithLogger(zerolog.New(zerolog.SyncWriter(stderr)).Level(zerolog.WarnLevel).With().Timestamp().Logger()))
	defer shutdown(rt, stderr)
	every := min(max(cfg.duration/600, 10*time.Millisecond), time.Second)
	progress := max(int(cfg.duration/12/every), 1)
	var outs []outcome
	for _, s := range strategies(cfg.limit, cfg.seed) {
		t := &trial{s: s, plan: plan, duration: cfg.duration, every: every, progress: progress, log: stderr, live: srv}
		o, err := t.run(ctx, rt, w)
		if err != nil {
			return nil, err
		}
		outs = append(outs, o)
	}
	return outs, nil
}

// shutdown stops the runtime, whose agents have all been stopped already.
func shutdown(rt *agent.Runtime, stderr io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	if err := rt.Shutdown(ctx); err != nil {
		fmt.Fprintf(stderr, "santa: shutting down: %v\n", err)
	}
}

// createPlot creates the plot's file at the start, so that a path that
// cannot be written is reported before the run rather than after it. It
// returns nil for no plot.
func createPlot(path string) (*os.File, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-plot: %w", err)
	}
	return f, nil
}

// finishPlot draws the outcomes into f and closes it, or, if the run failed
// with err, removes it. It returns err, or the error of drawing.
func finishPlot(f *os.File, path string, outs []outcome, err error, stdout io.Writer) error {
	if f == nil {
		return err
	}
	if err == nil {
		err = draw(f, outs)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return err
	}
	fmt.Fprintf(stdout, "santa: wrote %s\n", path)
	return nil
}
