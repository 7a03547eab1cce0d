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

func TestPipedHelloWorld(t *testing.T) {
	code, stdout, stderr, lines := runPiped(t, strings.NewReader("hello world"),
		"-r", "100", "-b", "5", "--work-delay", "10ms", "--flush-delay", "0")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, []string{"hello", " worl", "d"}, lines)
	assert.Contains(t, stdout, "11 keys in 3 lines")
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
	sc := bufio.NewScanner(strings.NewReader(stderr))
	for sc.Scan() {
		var ev struct {
			Message string          `json:"message"`
			Agent   string          `json:"agent"`
			Chain   string          `json:"chain"`
			Status  json.RawMessage `json:"status"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev), sc.Text())
		if ev.Message == "status" {
			assert.NotEmpty(t, ev.Status)
			seen[ev.Agent+ev.Chain]++
		}
	}
	assert.Equal(t, map[string]int{"rate": 2, "parallel": 2, "buffer": 2, "typewriter": 2}, seen)
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
