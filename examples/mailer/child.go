package main

import (
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// child is a process this program started: the mail server, a master or a
// worker. Its end can be awaited any number of times, by any number of
// goroutines: done is closed once the process has ended and been waited
// for, and err holds what Wait returned from then on.
type child struct {
	cmd  *exec.Cmd
	pid  int
	done chan struct{}
	err  error
}

// startChild starts cmd, set to die with this process (dieWithParent). One
// goroutine starts the process and waits for it, locked to its OS thread
// until the process has ended: Pdeathsig takes the thread that forked the
// process for its parent (go.dev/issue/27505), and Go ends a thread when a
// goroutine locked to it returns, so the thread must be no other
// goroutine's to lock while the process runs. The goroutine ends with the
// process, which its starter ends or waits for.
func startChild(cmd *exec.Cmd) (*child, error) {
	dieWithParent(cmd)
	c := &child{cmd: cmd, done: make(chan struct{})}
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
func (c *child) run(started chan<- error) {
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

// wait waits for the process to end, and returns what Wait returned.
func (c *child) wait() error {
	<-c.done
	return c.err
}

// end asks the process to end with SIGTERM and waits for it, killing it if
// it has not ended within endWait. It returns what Wait returned.
func (c *child) end() error {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	t := time.AfterFunc(endWait, func() { _ = c.cmd.Process.Kill() })
	defer t.Stop()
	return c.wait()
}

// kill kills the process with SIGKILL and waits for it.
func (c *child) kill() {
	_ = c.cmd.Process.Kill()
	<-c.done
}
