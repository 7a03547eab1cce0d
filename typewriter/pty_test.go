package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"
	"github.com/evolvekit/evolve/agent"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// deadline bounds every wait for the typewriter on its terminal: generous,
// as it is only reached when something is wrong.
const deadline = 20 * time.Second

// session is the typewriter running on a pseudo-terminal.
type session struct {
	t      *testing.T
	cmd    *exec.Cmd
	ptmx   *os.File // the test's side
	tty    *os.File // the typewriter's terminal
	before *unix.Termios
	path   string

	mu     sync.Mutex
	out    bytes.Buffer
	grew   chan struct{} // signalled when out grows
	read   chan struct{} // closed when the reader has returned
	exited chan struct{} // closed when the process has exited
	err    error         // the process's exit, once exited is closed
}

// start runs the typewriter on a new 120x30 pseudo-terminal, writing to a
// file of its own, with args.
func start(t *testing.T, args ...string) *session {
	t.Helper()
	return startBinary(t, binary, args...)
}

// startBinary runs bin as start runs the typewriter.
func startBinary(t *testing.T, bin string, args ...string) *session {
	t.Helper()
	ptmx, tty, err := pty.Open()
	require.NoError(t, err)
	require.NoError(t, pty.Setsize(ptmx, &pty.Winsize{Rows: 30, Cols: 120}))
	before, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	require.NoError(t, err)
	require.NotZero(t, before.Lflag&unix.ICANON, "a new terminal starts in canonical mode")

	s := &session{t: t, ptmx: ptmx, tty: tty, before: before, path: filepath.Join(t.TempDir(), "typewriter.txt"),
		grew: make(chan struct{}, 1), read: make(chan struct{}), exited: make(chan struct{})}
	s.cmd = exec.Command(bin, append([]string{"-f", s.path}, args...)...)
	s.cmd.Stdin, s.cmd.Stdout, s.cmd.Stderr = tty, tty, tty
	s.cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	require.NoError(t, s.cmd.Start())
	go s.readAll()
	go func() {
		s.err = s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(s.close)
	return s
}

// cursorQuery asks the terminal where its cursor is; cursorReport is a
// terminal's answer. A program that styles its output (through termenv)
// queries the terminal as it starts and waits up to five seconds for the
// answer, which a real terminal gives at once.
const (
	cursorQuery  = "\x1b[6n"
	cursorReport = "\x1b[1;1R"
)

// readAll copies what the typewriter writes into s.out until the terminal
// closes, answering its cursor queries as a terminal does.
func (s *session) readAll() {
	defer close(s.read)
	buf := make([]byte, 4096)
	answered := 0
	for {
		n, err := s.ptmx.Read(buf)
		s.mu.Lock()
		s.out.Write(buf[:n])
		queries := strings.Count(s.out.String(), cursorQuery)
		s.mu.Unlock()
		for ; answered < queries; answered++ {
			_, _ = s.ptmx.Write([]byte(cursorReport))
		}
		select {
		case s.grew <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

// screen returns everything the typewriter has written, without escape
// sequences.
func (s *session) screen() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ansi.Strip(s.out.String())
}

// waitFor waits until the typewriter has written marker. What it wrote
// before it exited may still be on its way to the reader after the exit.
func (s *session) waitFor(marker string) {
	s.t.Helper()
	timeout := time.After(deadline)
	for !strings.Contains(s.screen(), marker) {
		select {
		case <-s.grew:
		case <-timeout:
			s.t.Fatalf("no %q on the terminal after %v; it shows:\n%s", marker, deadline, s.screen())
		}
	}
}

// waitForAgain waits until the typewriter writes marker once more than it
// has so far.
func (s *session) waitForAgain(marker string) {
	s.t.Helper()
	seen := strings.Count(s.screen(), marker)
	timeout := time.After(deadline)
	for strings.Count(s.screen(), marker) == seen {
		select {
		case <-s.grew:
		case <-timeout:
			s.t.Fatalf("no %q again on the terminal after %v; it shows:\n%s", marker, deadline, s.screen())
		}
	}
}

// typeKeys writes keys to the terminal.
func (s *session) typeKeys(keys string) {
	s.t.Helper()
	_, err := s.ptmx.Write([]byte(keys))
	require.NoError(s.t, err)
}

// termios returns the terminal's current mode.
func (s *session) termios() *unix.Termios {
	s.t.Helper()
	tio, err := unix.IoctlGetTermios(int(s.tty.Fd()), unix.TCGETS)
	require.NoError(s.t, err)
	return tio
}

// exit waits for the typewriter to exit and returns its exit status.
func (s *session) exit() int {
	s.t.Helper()
	select {
	case <-s.exited:
	case <-time.After(deadline):
		_ = s.cmd.Process.Kill()
		<-s.exited
		s.t.Fatalf("the typewriter did not exit within %v; it shows:\n%s", deadline, s.screen())
	}
	var exit *exec.ExitError
	if errors.As(s.err, &exit) {
		return exit.ExitCode()
	}
	require.NoError(s.t, s.err)
	return 0
}

// assertRestored checks that the terminal is back in the mode it started in.
func (s *session) assertRestored() {
	s.t.Helper()
	after := s.termios()
	assert.Equal(s.t, s.before.Iflag, after.Iflag, "iflag")
	assert.Equal(s.t, s.before.Oflag, after.Oflag, "oflag")
	assert.Equal(s.t, s.before.Cflag, after.Cflag, "cflag")
	assert.Equal(s.t, s.before.Lflag, after.Lflag, "lflag")
	assert.Equal(s.t, s.before.Cc, after.Cc, "control characters")
}

// assertRaw checks that the typewriter has the terminal in raw mode.
func (s *session) assertRaw() {
	s.t.Helper()
	now := s.termios()
	assert.Zero(s.t, now.Lflag&(unix.ICANON|unix.ECHO|unix.ISIG), "raw mode: no line editing, echo or signals")
}

// close ends the process if it still runs, then the terminal and the reader.
func (s *session) close() {
	select {
	case <-s.exited:
	default:
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	s.tty.Close() // the reader gets EIO once no one holds the terminal
	<-s.read
	s.ptmx.Close()
}

// lines returns the lines of the typewriter's file.
func (s *session) lines() []string {
	s.t.Helper()
	return fileLines(s.t, s.path)
}

const (
	ctrlC = "\x03"
	ctrlD = "\x04"
	esc   = "\x1b"
	enter = "\r"
)

func TestTerminalTypeEnterCtrlD(t *testing.T) {
	t.Parallel()
	s := start(t, "-r", "1000", "-p", "4", "-b", "4", "--work-delay", "5ms", "--flush-delay", "300ms")
	s.waitFor("keys through the rate agent")
	s.assertRaw()

	s.typeKeys("hello")
	s.typeKeys(" wörld 😀")
	s.waitFor("13 typed")
	s.typeKeys(enter)
	s.waitFor("status logged")
	s.waitFor("INF status buffer")
	s.waitFor("1000 keys/s")
	s.waitFor("demand unbounded")
	assert.NotContains(t, s.screen(), strconv.Itoa(agent.Unbounded)[:7], "no demand is shown as a number near agent.Unbounded")
	s.typeKeys(ctrlD)
	s.waitFor("Ctrl-D: finishing...")

	require.Equal(t, 0, s.exit(), s.screen())
	s.assertRestored()
	assert.Equal(t, []string{"hell", "o wö", "rld ", "😀"}, s.lines())
	s.waitFor("typewriter: 13 keys in 4 lines in " + s.path)
}

func TestTerminalEscFlushesWhatWasTyped(t *testing.T) {
	t.Parallel()
	s := start(t, "-r", "1000", "-b", "10", "--work-delay", "5ms", "--flush-delay", "300ms")
	s.waitFor("keys through the rate agent")
	s.typeKeys("abc")
	s.waitFor("3 typed")
	s.typeKeys("?")
	s.waitFor("legend  ? or Esc hides it")
	s.waitFor("elapsed 0:01") // the display's clock ticks
	s.typeKeys(esc)           // hides the legend, and does not finish: keys are still taken
	s.waitForAgain("keys through the rate agent")
	s.typeKeys("d")
	s.waitFor("4 typed")
	s.typeKeys(esc)
	s.waitFor("Esc: finishing...")

	require.Equal(t, 0, s.exit(), s.screen())
	s.assertRestored()
	assert.Equal(t, []string{"abcd"}, s.lines(), "the partial line is flushed")
}

func TestTerminalCtrlCTwiceAborts(t *testing.T) {
	t.Parallel()
	s := start(t, "-r", "1000", "-b", "2", "--work-delay", "5ms", "--flush-delay", "1h")
	s.waitFor("keys through the rate agent")
	s.typeKeys("abcdef")
	s.waitFor("6 through the rate agent")
	s.typeKeys(ctrlC)
	s.waitFor("press Ctrl-C again to abort")
	s.assertRaw()
	s.typeKeys(ctrlC)

	require.Equal(t, 130, s.exit(), s.screen())
	s.assertRestored()
	assert.Empty(t, s.lines(), "no flush got past its hour's wait")
	s.waitFor("typewriter: aborted: 6 keys typed, 0 in " + s.path)
}

func TestTerminalSignals(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
		says string
	}{
		{syscall.SIGINT, 130, "typewriter: aborted: 3 keys typed"},
		{syscall.SIGTERM, 1, "typewriter: stopped: 3 keys typed"},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			t.Parallel()
			s := start(t, "-r", "1000", "--work-delay", "1h")
			s.waitFor("keys through the rate agent")
			s.typeKeys("abc")
			s.waitFor("3 typed")
			require.NoError(t, s.cmd.Process.Signal(tc.sig))

			require.Equal(t, tc.code, s.exit(), s.screen())
			s.assertRestored()
			s.waitFor(tc.says)
		})
	}
}

func TestTerminalPanicRestoresTheTerminal(t *testing.T) {
	t.Parallel()
	s := startBinary(t, panicky, "-r", "1000", "--work-delay", "1h")
	s.waitFor("keys through the rate agent")
	s.typeKeys("ab")
	s.waitFor("2 typed")
	s.typeKeys("¤")

	require.Equal(t, 1, s.exit(), s.screen())
	s.assertRestored()
	s.waitFor("¤ pressed")
	s.waitFor("typewriter: program was killed: program experienced a panic")
}
