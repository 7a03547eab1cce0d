package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"
)

// fleet is the worker processes the master starts: this program again,
// with -worker. It is safe for concurrent use.
type fleet struct {
	exe    string // this program
	master string // the master's address
	slots  int
	extra  []string  // more flags for each worker
	stderr io.Writer // the workers' stderr

	mu    sync.Mutex
	procs []*proc // in the order started
}

// proc is one worker process.
type proc struct {
	*child
	name   string
	killed bool // the fleet killed it on purpose; set before the signal
}

// newFleet returns a fleet of workers for the master at addr.
func newFleet(addr string, slots int, stderr io.Writer) (*fleet, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program to start workers: %w", err)
	}
	return &fleet{exe: exe, master: addr, slots: slots, stderr: stderr}, nil
}

// command returns the command line that starts a worker for the fleet's
// master, for the user to run by hand.
func (f *fleet) command() string {
	return fmt.Sprintf("go run ./examples/mailer -worker -master %s -slots %d", f.master, f.slots)
}

// start starts a worker process named name; wait and stop wait for it.
func (f *fleet) start(name string) (*proc, error) {
	args := append([]string{"-worker", "-master", f.master, "-slots", strconv.Itoa(f.slots), "-name", name}, f.extra...)
	cmd := exec.Command(f.exe, args...)
	cmd.Stderr = f.stderr
	c, err := startChild(cmd)
	if err != nil {
		return nil, fmt.Errorf("starting worker %s: %w", name, err)
	}
	p := &proc{child: c, name: name}
	f.mu.Lock()
	f.procs = append(f.procs, p)
	f.mu.Unlock()
	return p, nil
}

// kill kills p with SIGKILL and waits for it to end.
func (f *fleet) kill(p *proc) {
	f.mu.Lock()
	p.killed = true
	f.mu.Unlock()
	p.child.kill()
}

// wait waits up to d for every worker to end by itself (a worker ends once
// the campaign has finished), then kills those still running.
func (f *fleet) wait(d time.Duration) {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for _, p := range f.all() {
		select {
		case <-p.done:
		case <-deadline.C:
			f.stop()
			return
		}
	}
}

// stop kills every worker still running and waits for them.
func (f *fleet) stop() {
	for _, p := range f.all() {
		select {
		case <-p.done:
		default:
			f.kill(p)
		}
	}
}

// all returns the workers started so far.
func (f *fleet) all() []*proc {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*proc(nil), f.procs...)
}

// ended says how the worker p ended: "finished" for a clean exit, "killed
// (SIGKILL)" for the one the fleet killed, "exit status 1" and such
// otherwise, or "running".
func (f *fleet) ended(p *proc) string {
	select {
	case <-p.done:
	default:
		return "running"
	}
	f.mu.Lock()
	killed := p.killed
	f.mu.Unlock()
	var exit *exec.ExitError
	switch {
	case p.err == nil:
		return "finished"
	case killed:
		return "killed (SIGKILL)"
	case errors.As(p.err, &exit):
		return exit.String()
	}
	return p.err.Error()
}
