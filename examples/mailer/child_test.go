package main

import (
	"bufio"
	"os/exec"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAChildsEndIsSeenByEveryoneWhoWaits starts a mail server process and,
// once it serves, ends it while three goroutines wait for it: each of
// them, and every later wait, end and kill, sees the end and what Wait
// returned.
func TestAChildsEndIsSeenByEveryoneWhoWaits(t *testing.T) {
	cmd := command(t.Context(), "-role", "mail")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	c, err := startChild(cmd)
	require.NoError(t, err)
	assert.Equal(t, cmd.Process.Pid, c.pid)
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Contains(t, line, mailReady, "it serves, and ends on SIGTERM")
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() { errs[i] = c.wait() })
	}
	require.NoError(t, c.end(), "the mail server ends cleanly on SIGTERM")
	wg.Wait()
	assert.Equal(t, []error{nil, nil, nil}, errs)
	assert.NoError(t, c.end(), "ending an ended child returns at once")
	c.kill()
	assert.NoError(t, c.wait())
}

// TestAChildKilledReportsItsSignal kills a mail server process: every wait
// returns the same error, which names the signal.
func TestAChildKilledReportsItsSignal(t *testing.T) {
	cmd := command(t.Context(), "-role", "mail")
	c, err := startChild(cmd)
	require.NoError(t, err)
	c.kill()
	err = c.wait()
	require.EqualError(t, err, "signal: killed")
	assert.Same(t, err, c.end())
	_, err = startChild(exec.Command("/nonexistent/mailer"))
	assert.Error(t, err, "a program that cannot start is an error, and no child")
}
