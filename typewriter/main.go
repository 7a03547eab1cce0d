package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/promserve"
	"github.com/rs/zerolog"
	"golang.org/x/term"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program: it returns the exit status. Keys come from
// stdin; a terminal gets the interactive view, anything else is read as
// piped keys.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	st, err := newStages(cfg)
	if err != nil {
		return fail(stderr, err)
	}
	meter, srv, stopMetrics, err := promserve.Option(cfg.metrics)
	if err != nil {
		return fail(stderr, fmt.Errorf("--metrics: %w", err))
	}
	defer stopMetrics(context.Background())
	if srv != nil {
		fmt.Fprintf(stderr, "typewriter: the agents' metrics are at %s\n", srv.URL())
		fmt.Fprintf(stderr, "typewriter: a live page of the chain is at %s\n", srv.PageURL())
	}
	if srv != nil {
		cfg.meter, cfg.metricsURL, cfg.live = meter, srv.URL(), srv
	}
	out, err := createOutput(cfg.path)
	if err != nil {
		return fail(stderr, err)
	}
	var code int
	if tty, ok := terminal(stdin); ok {
		code = interactive(cfg, st, out, tty, stdout, stderr)
	} else {
		code = piped(cfg, st, out, stdin, stdout, stderr)
	}
	if err := out.close(); err != nil && code == 0 {
		return fail(stderr, err)
	}
	return code
}

// terminal returns stdin as a file if it is a terminal.
func terminal(stdin io.Reader) (*os.File, bool) {
	f, ok := stdin.(*os.File)
	return f, ok && term.IsTerminal(int(f.Fd()))
}

// fail writes err to stderr and returns exit status 1.
func fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "typewriter: %v\n", err)
	return 1
}

// newLogger returns a logger writing to w: readable lines on a terminal,
// JSON otherwise. Agents log from their own goroutines, so writes to w are
// serialized.
func newLogger(w io.Writer) zerolog.Logger {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		w = zerolog.ConsoleWriter{Out: f, TimeFormat: "15:04:05"}
	}
	return zerolog.New(zerolog.SyncWriter(w)).With().Timestamp().Logger()
}

// newRuntime returns the runtime the chain's agents run on, publishing
// their metrics with meter unless it is nil.
func newRuntime(log zerolog.Logger, meter agent.Option) *agent.Runtime {
	if meter == nil {
		return agent.NewRuntime(agent.WithLogger(log))
	}
	return agent.NewRuntime(meter, agent.WithLogger(log))
}

// shutdownTimeout bounds the wait for the agents' goroutines at exit; the
// work on a key and a flush both honour cancellation, so it is rarely used.
const shutdownTimeout = 5 * time.Second

// shutdown stops whatever still runs on rt and waits for its goroutines.
func shutdown(rt *agent.Runtime, stderr io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := rt.Shutdown(ctx); err != nil {
		fmt.Fprintf(stderr, "typewriter: shutting down: %v\n", err)
	}
}
