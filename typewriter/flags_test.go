package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFlagsTakesShortAndLongForms(t *testing.T) {
	def := defaults()
	with := func(f func(*config)) config {
		c := def
		f(&c)
		return c
	}
	for _, tc := range []struct {
		args []string
		want config
	}{
		{nil, def},
		{[]string{"-r", "0.5"}, with(func(c *config) { c.rate = 0.5 })},
		{[]string{"--rate-limit=100"}, with(func(c *config) { c.rate = 100 })},
		{[]string{"-p", "8"}, with(func(c *config) { c.parallel = parallelism{n: 8} })},
		{[]string{"--parallel-limit", "auto"}, with(func(c *config) { c.parallel = parallelism{auto: true} })},
		{[]string{"-b", "1"}, with(func(c *config) { c.buffer = 1 })},
		{[]string{"--buffer-size", "7"}, with(func(c *config) { c.buffer = 7 })},
		{[]string{"-f", "out.txt"}, with(func(c *config) { c.path = "out.txt" })},
		{[]string{"--file-path", "lines"}, with(func(c *config) { c.path = "lines" })},
		{[]string{"--work-delay", "10ms", "--flush-delay", "0"}, with(func(c *config) { c.workDelay, c.flushDelay = 10*time.Millisecond, 0 })},
		{[]string{"-r", "3", "-r", "4"}, with(func(c *config) { c.rate = 4 })},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stderr bytes.Buffer
			got, err := parseFlags(tc.args, &stderr)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Empty(t, stderr.String())
		})
	}
}

func TestBadFlagsPrintUsageAndExit2BeforeTouchingTheFile(t *testing.T) {
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"-r", "0"}, "-r must be a positive number"},
		{[]string{"-r", "-1"}, "-r must be a positive number"},
		{[]string{"-r", "NaN"}, "-r must be a positive number"},
		{[]string{"-r", "+Inf"}, "-r must be a positive number"},
		{[]string{"--rate-limit", "fast"}, "invalid value"},
		{[]string{"-p", "0"}, "-p must be at least 1 or auto"},
		{[]string{"-p", "two"}, `whole number or "auto"`},
		{[]string{"-b", "0"}, "-b must be between 1 and"},
		{[]string{"--buffer-size", "100001"}, "-b must be between 1 and"},
		{[]string{"-f", ""}, "-f must name a file"},
		{[]string{"--work-delay", "-1s"}, "--work-delay must not be negative"},
		{[]string{"--flush-delay", "soon"}, "invalid value"},
		{[]string{"--speed", "3"}, "flag provided but not defined"},
		{[]string{"-b"}, "flag needs an argument"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out.txt")
			var stdout, stderr bytes.Buffer
			args := append([]string{"-f", path}, tc.args...)
			code := run(args, failingReader{t}, &stdout, &stderr)
			assert.Equal(t, 2, code)
			assert.Contains(t, stderr.String(), tc.says)
			assert.Contains(t, stderr.String(), "usage: typewriter")
			assert.Empty(t, stdout.String())
			if tc.args[0] != "-f" {
				assert.NoFileExists(t, path)
			}
		})
	}
}

func TestHelpPrintsUsageAndExits0(t *testing.T) {
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 0, run([]string{"-h"}, failingReader{t}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "usage: typewriter")
	assert.Contains(t, stderr.String(), "--parallel-limit")
}

func TestAnUnwritableFileFailsBeforeAnyKeyIsRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "out.txt")
	var stdout, stderr bytes.Buffer
	code := run([]string{"-f", path}, failingReader{t}, &stdout, &stderr)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr.String(), "cannot write the output file "+path)
	assert.NotContains(t, stderr.String(), "usage")
}

func TestAFileThatIsADirectoryFailsBeforeAnyKeyIsRead(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"-f", dir}, failingReader{t}, &stdout, &stderr)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr.String(), dir)
	_, err := os.Stat(dir)
	assert.NoError(t, err)
}

// failingReader fails the test if anything reads it.
type failingReader struct{ t *testing.T }

func (r failingReader) Read([]byte) (int, error) {
	r.t.Error("stdin was read")
	return 0, os.ErrClosed
}
