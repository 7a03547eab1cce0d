package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runPiped runs the typewriter on input with args and returns its exit
// status, stdout, stderr and the lines of its file.
func runPiped(t *testing.T, input io.Reader, args ...string) (int, string, string, []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "typewriter.txt")
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"-f", path}, args...), input, &stdout, &stderr)
	return code, stdout.String(), stderr.String(), fileLines(t, path)
}

// fileLines returns the lines of the file at path.
func fileLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(data)
	if text == "" {
		return nil
	}
	require.True(t, strings.HasSuffix(text, "\n"), "the file ends in a newline: %q", text)
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

func TestPipedLongUTF8KeepsEveryCharacterInOrder(t *testing.T) {
	alphabet := []rune("abcxyzABC 0123 éüßçñ ΑΒΓαβγ жизнь 日本語の文字 한국어 עברית العربية हिन्दी 😀🎉🚀👍🏽🧪\t\r")
	rng := rand.New(rand.NewPCG(4, 2))
	keys := make([]rune, 2000)
	for i := range keys {
		keys[i] = alphabet[rng.IntN(len(alphabet))]
	}
	input := string(keys)
	require.Equal(t, 2000, utf8.RuneCountInString(input))

	code, _, stderr, lines := runPiped(t, strings.NewReader(input),
		"-r", "1000000", "-p", "8", "-b", "7", "--work-delay", "1ms", "--flush-delay", "0")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, input, strings.Join(lines, ""))
	require.Len(t, lines, 2000/7+1)
	for i, l := range lines[:len(lines)-1] {
		assert.Equal(t, 7, utf8.RuneCountInString(l), "line %d: %q", i, l)
	}
}

func TestPipedNewlineLogsEveryAgentsStatus(t *testing.T) {
	code, _, stderr, lines := runPiped(t, strings.NewReader("ab\ncd\n"),
		"-r", "1000", "-b", "3", "--work-delay", "1ms", "--flush-delay", "0")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, []string{"abc", "d"}, lines)

	seen := map[string]int{}
	for _, ev := range logEvents(t, stderr) {
		assert.Equal(t, "info", ev.Level, "only the status events asked for: %+v", ev)
		assert.Equal(t, "status", ev.Message)
		if ev.Chain == "" {
			assert.NotEmpty(t, ev.Status, "an agent's event carries its status")
			assert.Contains(t, string(ev.Status), `"queued":`)
		}
		seen[ev.Agent+ev.Chain]++
	}
	assert.Equal(t, map[string]int{"rate": 2, "parallel": 2, "buffer": 2, "typewriter": 2}, seen)
	assert.NotContains(t, stderr, "actor system started")
}

func TestPipedHelloWorldLeavesStderrEmpty(t *testing.T) {
	for _, p := range []string{"2", "auto"} {
		t.Run("-p "+p, func(t *testing.T) {
			code, stdout, stderr, lines := runPiped(t, strings.NewReader("hello world"),
				"-r", "100", "-p", p, "-b", "5", "--work-delay", "10ms", "--flush-delay", "0")
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, []string{"hello", " worl", "d"}, lines)
			assert.Contains(t, stdout, "11 keys in 3 lines")
			assert.Empty(t, stderr, "no newline in the input, so nothing is logged: no \"actor system started\", no info")
		})
	}
}

// logEvent is what the tests read of a JSON log line.
type logEvent struct {
	Level   string          `json:"level"`
	Message string          `json:"message"`
	Agent   string          `json:"agent"`
	Chain   string          `json:"chain"`
	Status  json.RawMessage `json:"status"`
}

// logEvents parses stderr as JSON log lines, one event a line.
func logEvents(t *testing.T, stderr string) []logEvent {
	t.Helper()
	var evs []logEvent
	sc := bufio.NewScanner(strings.NewReader(stderr))
	for sc.Scan() {
		var ev logEvent
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev), sc.Text())
		evs = append(evs, ev)
	}
	require.NoError(t, sc.Err())
	return evs
}

func TestPipedEmptyInputLeavesAnEmptyFile(t *testing.T) {
	code, stdout, stderr, lines := runPiped(t, strings.NewReader(""), "--work-delay", "0", "--flush-delay", "0")
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, lines)
	assert.Contains(t, stdout, "0 keys in 0 lines")
}

func TestPipedReadErrorFailsAfterTypingWhatWasRead(t *testing.T) {
	input := io.MultiReader(strings.NewReader("abc"), errReader{errors.New("disk on fire")})
	code, _, stderr, lines := runPiped(t, input, "-r", "1000", "-b", "2", "--work-delay", "0", "--flush-delay", "0")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "disk on fire")
	assert.Equal(t, []string{"ab", "c"}, lines)
}

func TestPipedFailedFlushExits1NamingTheFile(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"-f", "/dev/full", "-r", "1000", "-b", "2", "--work-delay", "0", "--flush-delay", "0"},
		strings.NewReader("abc"), &stdout, &stderr)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr.String(), "appending a line to /dev/full")
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

func TestPipedAutoLearnsItsLimitAndKeepsOrder(t *testing.T) {
	input := strings.Repeat("adaptive ✓ ", 40)
	code, _, stderr, lines := runPiped(t, strings.NewReader(input+"\n"),
		"-r", "1000000", "-p", "auto", "-b", "9", "--work-delay", "1ms", "--flush-delay", "0")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, input, strings.Join(lines, ""))
	assert.Contains(t, stderr, `"agent":"adaptive"`, "the newline logs the adaptive agent's status")
}
