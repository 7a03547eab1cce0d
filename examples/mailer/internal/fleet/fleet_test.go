package fleet

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// childEnv, set in a process's environment, makes the test binary a child
// that says "ready" and waits for SIGTERM; run with -worker first, as a
// fleet starts it, it is a worker that writes its flags to stderr, then
// exits with the status after -exit, or waits for SIGTERM.
const childEnv = "FLEET_TEST_CHILD"

func TestMain(m *testing.M) {
	switch {
	case os.Getenv(childEnv) != "":
		os.Exit(awaitTerm(os.Stdout, "ready"))
	case len(os.Args) > 1 && os.Args[1] == "-worker":
		for i, a := range os.Args {
			if a == "-exit" {
				fmt.Fprintln(os.Stderr, strings.Join(os.Args[1:], " "))
				var code int
				_, _ = fmt.Sscan(os.Args[i+1], &code)
				os.Exit(code)
			}
		}
		os.Exit(awaitTerm(os.Stderr, strings.Join(os.Args[1:], " ")))
	}
	goleak.VerifyTestMain(m)
}

// awaitTerm writes line to w once SIGTERM is caught, waits for it, and
// returns the exit status 0.
func awaitTerm(w *os.File, line string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	fmt.Fprintln(w, line)
	<-ctx.Done()
	return 0
}

// bound is how long a test waits for a process.
const bound = 30 * time.Second

// child returns the command of a child, killed once the test ends.
func child(t *testing.T) *exec.Cmd {
	cmd := exec.CommandContext(t.Context(), os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=1")
	return cmd
}

// TestAChildsEndIsSeenByEveryoneWhoWaits starts a child and, once it
// runs, ends it while three goroutines wait for it: each of them, and
// every later wait, end and kill, sees the end and what Wait returned.
func TestAChildsEndIsSeenByEveryoneWhoWaits(t *testing.T) {
	cmd := child(t)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	c, err := Start(cmd)
	require.NoError(t, err)
	assert.Equal(t, cmd.Process.Pid, c.Pid())
	assert.NoError(t, c.Err(), "no error while it runs")
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready\n", line, "it runs, and ends on SIGTERM")
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() { errs[i] = c.Wait() })
	}
	require.NoError(t, c.End(), "the child ends cleanly on SIGTERM")
	wg.Wait()
	assert.Equal(t, []error{nil, nil, nil}, errs)
	assert.NoError(t, c.End(), "ending an ended child returns at once")
	c.Kill()
	assert.NoError(t, c.Wait())
	<-c.Done()
}

// TestAChildKilledReportsItsSignal kills a child: every wait returns the
// same error, which names the signal.
func TestAChildKilledReportsItsSignal(t *testing.T) {
	c, err := Start(child(t))
	require.NoError(t, err)
	c.Kill()
	err = c.Wait()
	require.EqualError(t, err, "signal: killed")
	assert.Same(t, err, c.End())
	assert.Same(t, err, c.Err())
	_, err = Start(exec.Command("/nonexistent/mailer"))
	assert.Error(t, err, "a program that cannot start is an error, and no child")
}

// syncBuffer is a buffer safe for concurrent use, which can be waited on.
type syncBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{} // closed, and replaced, at each write
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{wrote: make(chan struct{})} }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.wrote)
	s.wrote = make(chan struct{})
	return s.b.Write(p)
}

// await waits, up to bound, until what was written holds text.
func (s *syncBuffer) await(t *testing.T, text string) {
	t.Helper()
	deadline := time.NewTimer(bound)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		found, wrote := strings.Contains(s.b.String(), text), s.wrote
		s.mu.Unlock()
		if found {
			return
		}
		select {
		case <-wrote:
		case <-deadline.C:
			t.Fatalf("%q not written within %v, only:\n%s", text, bound, s.String())
		}
	}
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A fleet starts its workers with the master's address, the slots, each
// one's name and the extra flags, and says how each ended: the one it
// killed, one that failed, and those it stopped.
func TestAFleetStartsItsWorkersAndSaysHowEachEnded(t *testing.T) {
	stderr := newSyncBuffer()
	f, err := New("127.0.0.1:7070", 4, []string{"-tls-ca", "/tmp/my ca.pem"}, stderr)
	require.NoError(t, err)
	assert.Equal(t, `go run ./examples/mailer -worker -master 127.0.0.1:7070 -slots 4 -tls-ca "/tmp/my ca.pem"`, f.Command())

	w1, err := f.Start("w1")
	require.NoError(t, err)
	w2, err := f.Start("w2")
	require.NoError(t, err)
	assert.Equal(t, "running", f.Ended(w1))
	stderr.await(t, "-worker -master 127.0.0.1:7070 -slots 4 -name w1 -tls-ca /tmp/my ca.pem\n")
	f.Kill(w1)
	assert.Equal(t, "killed (SIGKILL)", f.Ended(w1))

	bad, err := New("127.0.0.1:7070", 4, []string{"-exit", "3"}, stderr)
	require.NoError(t, err)
	w3, err := bad.Start("w3")
	require.NoError(t, err)
	bad.Wait(bound)
	assert.Equal(t, "exit status 3", bad.Ended(w3), "it ended by itself, within the bound")

	f.Stop()
	assert.Equal(t, "killed (SIGKILL)", f.Ended(w2), "stopped workers are killed")
	assert.Equal(t, []*Worker{w1, w2}, f.All())
	assert.Contains(t, stderr.String(), "-worker -master 127.0.0.1:7070 -slots 4 -name w3 -exit 3\n")
}

// A worker that ends on SIGTERM, asked to, is "finished".
func TestAWorkerEndedCleanlyIsFinished(t *testing.T) {
	stderr := newSyncBuffer()
	f, err := New("127.0.0.1:7070", 1, nil, stderr)
	require.NoError(t, err)
	w, err := f.Start("w1")
	require.NoError(t, err)
	stderr.await(t, "-name w1")
	require.NoError(t, w.End())
	assert.Equal(t, "finished", f.Ended(w))
	f.Wait(bound)
}
