package fleet

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fleet is the worker processes a master starts: this program again, with
// -worker. It is safe for concurrent use.
type Fleet struct {
	exe    string // this program
	master string // the master's address
	slots  int
	extra  []string  // more flags for each worker
	stderr io.Writer // the workers' stderr

	mu    sync.Mutex
	procs []*Worker // in the order started
}

// Worker is one worker process.
type Worker struct {
	*Child
	Name   string
	killed bool // the fleet killed it on purpose; set before the signal
}

// New returns a fleet of workers of slots slots each, with the flags extra
// beyond -worker, -master, -slots and -name, for the master at addr; their
// stderr goes to stderr.
func New(addr string, slots int, extra []string, stderr io.Writer) (*Fleet, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program to start workers: %w", err)
	}
	return &Fleet{exe: exe, master: addr, slots: slots, extra: extra, stderr: stderr}, nil
}

// Command returns the command line that starts a worker for the fleet's
// master, for the user to run by hand.
func (f *Fleet) Command() string {
	args := []string{"go run ./examples/mailer -worker -master", f.master, "-slots", strconv.Itoa(f.slots)}
	for _, a := range f.extra {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$") {
			a = strconv.Quote(a)
		}
		args = append(args, a)
	}
	return strings.Join(args, " ")
}

// Start starts a worker process named name; Wait and Stop wait for it.
func (f *Fleet) Start(name string) (*Worker, error) {
	args := append([]string{"-worker", "-master", f.master, "-slots", strconv.Itoa(f.slots), "-name", name}, f.extra...)
	cmd := exec.Command(f.exe, args...)
	cmd.Stderr = f.stderr
	c, err := Start(cmd)
	if err != nil {
		return nil, fmt.Errorf("starting worker %s: %w", name, err)
	}
	w := &Worker{Child: c, Name: name}
	f.mu.Lock()
	f.procs = append(f.procs, w)
	f.mu.Unlock()
	return w, nil
}

// Kill kills w with SIGKILL and waits for it to end.
func (f *Fleet) Kill(w *Worker) {
	f.mu.Lock()
	w.killed = true
	f.mu.Unlock()
	w.Child.Kill()
}

// Wait waits up to d for every worker to end by itself (a worker ends once
// the campaign has finished), then kills those still running.
func (f *Fleet) Wait(d time.Duration) {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for _, w := range f.All() {
		select {
		case <-w.done:
		case <-deadline.C:
			f.Stop()
			return
		}
	}
}

// Stop kills every worker still running and waits for them.
func (f *Fleet) Stop() {
	for _, w := range f.All() {
		select {
		case <-w.done:
		default:
			f.Kill(w)
		}
	}
}

// All returns the workers started so far.
func (f *Fleet) All() []*Worker {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*Worker(nil), f.procs...)
}

// Ended says how the worker w ended: "finished" for a clean exit, "killed
// (SIGKILL)" for one the fleet killed, "exit status 1" and such otherwise,
// or "running".
func (f *Fleet) Ended(w *Worker) string {
	select {
	case <-w.done:
	default:
		return "running"
	}
	f.mu.Lock()
	killed := w.killed
	f.mu.Unlock()
	var exit *exec.ExitError
	switch {
	case w.err == nil:
		return "finished"
	case killed:
		return "killed (SIGKILL)"
	case errors.As(w.err, &exit):
		return exit.String()
	}
	return w.err.Error()
}
