// Command pipeline runs a pipeline of worker kinds on one master: it
// fetches pages from an HTTP server it starts on 127.0.0.1, then analyses
// each on worker processes it starts (this program again, with -worker):
// tokenizers, which hold a stop-word list, and classifiers, which hold a
// model. A job that reaches a worker lacking what its next step needs
// asks to move on, with the state it reached, to one that holds it (an
// env swap), and one classifier is killed (SIGKILL) part way through. The
// master logs each job's path across the workers, and checks at the end
// that every page reached the sink once, with the right label.
//
//	go run ./examples/pipeline
//	go run ./examples/pipeline -pages 200 -big 3
//
// With -state DIR a durable queue in DIR feeds the pipeline and records
// each job's moves; with -kill-master-after N as well, the master is
// killed (SIGKILL) once N verdicts are in and started again, and the jobs
// it held go on from their last move, not from their fetch:
//
//	go run ./examples/pipeline -state /tmp/pipeline -kill-master-after 20
//
// A worker by hand: go run ./examples/pipeline -worker classify -master ADDR
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// config is what the flags say.
type config struct {
	pages   int    // pages to analyse
	big     int    // how many of them are over bigSize bytes
	bigSize int    // the size of a big page
	kill    bool   // kill a classifier part way through
	worker  string // this process is a worker of this kind
	master  string // a worker's master
	name    string // a worker's name
	items   bool   // a worker's jobs come from a durable queue
	// state, when set, is the directory of a durable queue that feeds the
	// pipeline and records each job's moves, and of the log of verdicts.
	state string
	// killMasterAfter runs the master as a process of its own that kills
	// itself once that many verdicts are in the log, then again.
	killMasterAfter int
	// role and killAfter are what a master started by killMasterAfter is
	// told.
	role      string
	killAfter int
}

func main() { os.Exit(mainCode(os.Args[1:])) }

// mainCode runs the program with args and returns its exit status: 2 for
// a bad command line, 1 for a failure, 0 for a run whose checks passed.
func mainCode(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, args, os.Stdout, os.Stderr)
	if err == nil {
		return 0
	}
	fmt.Fprintln(os.Stderr, "pipeline:", err)
	var fe *flagError
	if errors.As(err, &fe) {
		return 2
	}
	return 1
}

// flagError is an error in the command line.
type flagError struct{ err error }

func (e *flagError) Error() string { return e.err.Error() }
func (e *flagError) Unwrap() error { return e.err }

// run runs the program with args, as main does.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parse(args, stderr)
	if err != nil {
		return &flagError{err}
	}
	switch {
	case cfg.worker != "":
		return work(ctx, cfg, stdout, stderr)
	case cfg.killMasterAfter > 0:
		return supervise(ctx, cfg, stdout, stderr)
	case cfg.state != "":
		return queued(ctx, cfg, stdout, stderr)
	}
	return master(ctx, cfg, stdout, stderr)
}

// parse reads the flags.
func parse(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("pipeline", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.IntVar(&cfg.pages, "pages", 60, "pages to analyse")
	fs.IntVar(&cfg.big, "big", 2, "how many pages are big (past -big-size bytes)")
	fs.IntVar(&cfg.bigSize, "big-size", 1<<20+1<<18, "the size of a big page, in bytes")
	fs.BoolVar(&cfg.kill, "kill", true, "kill a classifier (SIGKILL) part way through")
	fs.StringVar(&cfg.worker, "worker", "", "be a worker of this kind: tokenize, classify or both")
	fs.StringVar(&cfg.master, "master", "", "a worker's master: its address")
	fs.StringVar(&cfg.name, "name", "", "a worker's name (default worker-PID)")
	fs.BoolVar(&cfg.items, "items", false, "internal: a worker's jobs come from a durable queue")
	fs.StringVar(&cfg.state, "state", "", "feed the pipeline from a durable queue in this directory, which records each job's moves")
	fs.IntVar(&cfg.killMasterAfter, "kill-master-after", 0, "with -state: kill the master (SIGKILL) once this many verdicts are in, and start it again")
	fs.StringVar(&cfg.role, "role", "", "internal: \"master\" for a master started by -kill-master-after")
	fs.IntVar(&cfg.killAfter, "kill-after", 0, "internal: the verdicts after which a master started by -kill-master-after kills itself")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	switch {
	case fs.NArg() > 0:
		return cfg, fmt.Errorf("unexpected arguments: %q", fs.Args())
	case cfg.pages < 1:
		return cfg, fmt.Errorf("-pages must be at least 1, got %d", cfg.pages)
	case cfg.big < 0 || cfg.big > cfg.pages:
		return cfg, fmt.Errorf("-big must be between 0 and -pages (%d), got %d", cfg.pages, cfg.big)
	case cfg.bigSize < 1 || cfg.bigSize > 3<<20:
		return cfg, fmt.Errorf("-big-size must be between 1 and %d bytes, got %d", 3<<20, cfg.bigSize)
	case cfg.worker != "" && cfg.master == "":
		return cfg, errors.New("-worker needs -master, the master's address")
	case cfg.killMasterAfter < 0:
		return cfg, fmt.Errorf("-kill-master-after must not be negative, got %d", cfg.killMasterAfter)
	case cfg.killMasterAfter > 0 && cfg.state == "":
		return cfg, errors.New("-kill-master-after needs -state, the directory of the queue that outlives the master")
	case cfg.killMasterAfter >= cfg.pages:
		return cfg, fmt.Errorf("-kill-master-after must be below -pages (%d), got %d", cfg.pages, cfg.killMasterAfter)
	}
	return cfg, nil
}
