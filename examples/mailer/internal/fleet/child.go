// Package fleet starts the mailer's processes and ends them: a [Child] is
// one process the program started (the mail server, a master or a
// worker), which dies with it; a [Fleet] is the worker processes a master
// or a supervisor starts, this program again with -worker.
package fleet

import (
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// EndWait is how long a child asked to end (SIGTERM) gets before it is
// killed.
const EndWait = 10 * time.Second

// Child is a process this program started. Its end can be awaited any
// number of times, by any number of goroutines: Done is closed once the
// process has ended and been waited for, and Err returns what Wait
// returned from then on.
type Child struct {
	cmd  *exec.Cmd
	pid  int
	done chan struct{}
	err  error
}

// Start starts cmd, set to die with this process (dieWithParent). One
// goroutine starts the process and waits for it, locked to its OS thread
// until the process has ended: Pdeathsig takes the thread that forked the
// process for its parent (go.dev/issue/27505), and Go ends a thread when a
// goroutine locked to it returns, so the thread must be no other
// goroutine's to lock while the process runs. The goroutine ends with the
// process, which its starter ends or waits for.
func Start(cmd *exec.Cmd) (*Child, error) {
	dieWithParent(cmd)
	c := &Child{cmd: cmd, done: make(chan struct{})}
	started := make(chan error, 1)
	go c.run(started)
	if err := <-started; err != nil {
		return nil, err
	}
	c.pid = cmd.Process.Pid
	return c, nil
}

// run starts the process, says on started whether it did, and waits for
// it to end.
func (c *Child) run(started chan<- error) {
	defer close(c.done)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if c.err = c.cmd.Start(); c.err != nil {
		started <- c.err
		return
	}
	started <- nil
	c.err = c.cmd.Wait()
}

// Pid returns the process's id.
func (c *Child) Pid() int { return c.pid }

// Done is closed once the process has ended.
func (c *Child) Done() <-chan struct{} { return c.done }

// Err returns what Wait returned, once Done is closed; nil before.
func (c *Child) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// Wait waits for the process to end, and returns what Wait returned.
func (c *Child) Wait() error {
	<-c.done
	return c.err
}

// End asks the process to end with SIGTERM and waits for it, killing it if
// it has not ended within EndWait. It returns what Wait returned.
func (c *Child) End() error {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	t := time.AfterFunc(EndWait, func() { _ = c.cmd.Process.Kill() })
	defer t.Stop()
	return c.Wait()
}

// Kill kills the process with SIGKILL and waits for it.
func (c *Child) Kill() {
	_ = c.cmd.Process.Kill()
	<-c.done
}
