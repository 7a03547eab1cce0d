package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/remote"
	"github.com/rs/zerolog"
)

// stageName is the analysis stage's name on the master's node: what
// workers ask for.
const stageName = "analyse"

// work makes this process a worker of kind for the master at cfg.master,
// until the analysis has finished.
func work(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	name := cfg.name
	if name == "" {
		name = fmt.Sprintf("worker-%d", os.Getpid())
	}
	res, tags, err := load(name, cfg.worker)
	if err != nil {
		return &flagError{err}
	}
	log := zerolog.New(zerolog.SyncWriter(stderr)).Level(zerolog.WarnLevel).With().Timestamp().Str("worker", name).Logger()
	wcfg := remote.WorkerConfig{Master: cfg.master, Stage: stageName, Slots: 4, Tags: tags, Log: log}
	if cfg.items {
		// The master's jobs come from a durable queue: each with its key
		// and ticket, which its verdict keeps, and a move of its job with
		// them.
		err = remote.Work(ctx, wcfg, durable.Map(res.analyse))
	} else {
		err = remote.Work(ctx, wcfg, res.analyse)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "pipeline: worker %s (%s) done\n", name, cfg.worker)
	return nil
}

// crew is the worker processes the master starts: this program again.
type crew struct {
	exe    string
	master string
	extra  []string // more flags for each worker
	out    io.Writer

	mu    sync.Mutex
	procs map[string]*exec.Cmd
	wg    sync.WaitGroup
}

// startCrew starts a worker of each of kinds for the master at addr, with
// the flags extra too; stop the crew it returns, even with an error (it
// stops those it started).
func startCrew(addr string, out io.Writer, extra ...string) (*crew, error) {
	exe, err := os.Executable()
	c := &crew{exe: exe, master: addr, extra: extra, out: out, procs: map[string]*exec.Cmd{}}
	if err != nil {
		return c, fmt.Errorf("finding this program to start workers: %w", err)
	}
	for _, k := range kinds {
		if err := c.start(k.name, k.kind); err != nil {
			return c, err
		}
	}
	return c, nil
}

// start starts a worker of kind named name.
func (c *crew) start(name, kind string) error {
	cmd := exec.Command(c.exe, append([]string{"-worker", kind, "-master", c.master, "-name", name}, c.extra...)...)
	cmd.Stdout, cmd.Stderr = c.out, c.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // a worker ends with its master
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting worker %s: %w", name, err)
	}
	c.mu.Lock()
	c.procs[name] = cmd
	c.mu.Unlock()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		_ = cmd.Wait()
	}()
	return nil
}

// kill kills the worker name with SIGKILL.
func (c *crew) kill(name string) error {
	c.mu.Lock()
	cmd := c.procs[name]
	c.mu.Unlock()
	if cmd == nil {
		return fmt.Errorf("no worker %s", name)
	}
	return cmd.Process.Kill()
}

// stop kills the workers still running and waits for every one.
func (c *crew) stop() {
	c.mu.Lock()
	for _, cmd := range c.procs {
		_ = cmd.Process.Kill() // an error: it has ended already
	}
	c.mu.Unlock()
	c.wg.Wait()
}

// wait waits for every worker to end by itself, or ctx to end.
func (c *crew) wait(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		c.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}
