package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
)

// interactive runs the display on the terminal tty until the user ends the
// input (Ctrl-D, Esc: exit 0 once every key is in the file) or aborts
// (Ctrl-C twice: exit 130). The log goes to a pane of the display. Bubble
// Tea restores the terminal on every way out, a panic in the display
// included; the goroutines started here recover their own panics, and are
// waited for before it returns.
func interactive(cfg config, st stages, out *output, tty *os.File, stdout, stderr io.Writer) int {
	logs := newLogPane(200)
	rt := newRuntime(logs.logger(), cfg.meter)
	defer shutdown(rt, stderr)
	feed := newFeeder()
	p := tea.NewProgram(newModel(cfg, feed, logs),
		tea.WithInput(tty), tea.WithOutput(stdout), tea.WithAltScreen())
	chain, err := st.start(rt, cfg, out, watch{
		passed:  func(k rune) { p.Send(passedMsg(k)) },
		written: func(line []rune) { p.Send(writtenMsg(line)) },
	})
	if err != nil {
		return fail(stderr, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	startHelpers(ctx, &wg, p.Send, feed, chain)
	final, runErr := p.Run()
	cancel() // the deferred shutdown stops the chain, if it still runs
	wg.Wait()
	return outcome(final, runErr, out.path, stdout, stderr)
}

// startHelpers starts the goroutines that feed the keys typed to the chain
// and poll its status, each sending what it learns to the display; they end
// once the chain is done or ctx ends, and wg waits for them. A panic in one
// is sent as a failure.
func startHelpers(ctx context.Context, wg *sync.WaitGroup, send func(tea.Msg), feed *feeder, chain agent.Handle[rune, compose.Status]) {
	wg.Go(func() {
		err := guard(func() error { return feed.run(ctx, chain) })
		send(drainedMsg{err})
	})
	wg.Go(func() {
		err := guard(func() error {
			pollStatus(ctx, chain, func(st statusMsg) { send(st) }, statusEvery)
			return nil
		})
		if err != nil {
			send(failedMsg{err})
		}
	})
}

// outcome reports how the session ended and returns the exit status.
func outcome(final tea.Model, runErr error, path string, stdout, stderr io.Writer) int {
	m, _ := final.(model)
	switch {
	case errors.Is(runErr, tea.ErrInterrupted) || m.phase == aborted:
		fmt.Fprintf(stderr, "typewriter: aborted: %d keys typed, %d in %s\n", m.typed, m.inFile, path)
		return 130
	case runErr != nil:
		return fail(stderr, runErr)
	case m.err != nil:
		return fail(stderr, m.err)
	case m.phase != finished:
		return fail(stderr, fmt.Errorf("stopped: %d keys typed, %d in %s", m.typed, m.inFile, path))
	}
	summary(stdout, m.inFile, len(m.lines), path)
	return 0
}

// guard runs f, turning a panic into an error that carries the stack, so a
// goroutine of the display cannot end the process with the terminal in raw
// mode.
func guard(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	return f()
}
