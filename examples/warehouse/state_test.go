package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAKilledLoadResumesWithItsState runs the program with -state in a
// child process, kills it with SIGKILL once some batch files are written,
// and runs it again with the same flags: the second run says how many
// records it found loaded, loads only the rest, and its check finds every
// record in the files exactly once. Its summary says it resumed, counts
// the files of this run, takes the least possible time of the records
// left, and says why its start was slow.
func TestAKilledLoadResumesWithItsState(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	args := fmt.Sprintf("-records 1500 -rate 3000 -batch 50 -fail 0 -state %s", dir)
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), childArgs+"="+args)
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(time.Minute)
	for {
		files, err := filepath.Glob(filepath.Join(dir, "batches", filePattern))
		require.NoError(t, err)
		if len(files) >= 5 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the first run ended before it was killed: %v", err)
		default:
		}
		require.True(t, time.Now().Before(deadline), "the first run wrote %d files in a minute", len(files))
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	<-done
	before, err := filepath.Glob(filepath.Join(dir, "batches", filePattern))
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errs bytes.Buffer
	err = run(ctx, regexp.MustCompile(`\s+`).Split(args, -1), &out, &errs)
	require.NoError(t, err, "%s\n%s", out.String(), errs.String())
	m := regexp.MustCompile(`found (\d+) records already loaded`).FindStringSubmatch(out.String())
	require.NotNil(t, m, out.String())
	found, _ := strconv.Atoi(m[1])
	require.Greater(t, found, 0, "the second run found nothing loaded")
	loaded := figure(t, out.String(), "records loaded")
	require.Equal(t, 1500, found+loaded, "what the first run loaded and what the second did add up to every record once:\n%s", out.String())
	require.Contains(t, out.String(), "check:           every id from 1 to 1500 is in")
	after, err := filepath.Glob(filepath.Join(dir, "batches", filePattern))
	require.NoError(t, err)
	text := out.String()
	require.Contains(t, text, fmt.Sprintf("records loaded:  %d of 1500, in %d files, by this run: it resumed a load that had %d records loaded already\n", loaded, len(after)-len(before), found), text)
	require.Regexp(t, fmt.Sprintf(`elapsed: +\S+ \(least possible: \S+, %d records left at 3000 a second\)\n`, 1500-found), text)
	require.Regexp(t, `\nslow start: +the last run died loading: this one had no token until that run's share of the -rate limit kept with the queue lapsed \(about 3s\), then loaded each of the up to \d+ ids it held alone, no other GET beside it, so that an id that kills the process is found \(durable's crash isolation\): at most 50 a second, a GET taking 20ms\n`, text)
	_, err = os.Stat(filepath.Join(dir, loadingFile))
	require.ErrorIs(t, err, os.ErrNotExist, "a run that ended leaves no word of a death")
	seen, _ := readFiles(t, filepath.Join(dir, "batches"))
	require.Len(t, seen, 1500)
	for id, n := range seen {
		require.Equal(t, 1, n, "record %d", id)
	}
	t.Logf("the first run, killed, loaded %d records; the second loaded the other %d", found, loaded)
}

// TestAnInterruptedLoadResumesWithoutASlowStart interrupts a load with
// -state once it has loaded two seconds' worth, and runs it again: the
// second run's summary says it resumed, and the least possible time of the
// records left; the first ended without dying, so nothing slowed the
// second's start, and the summary says nothing of one.
func TestAnInterruptedLoadResumesWithoutASlowStart(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	args := regexp.MustCompile(`\s+`).Split(fmt.Sprintf("-records 2000 -rate 500 -parallel 16 -batch 50 -fail 0 -state %s", dir), -1)
	ctx, cancel := context.WithCancel(t.Context())
	progress := &cancelAfter{w: &bytes.Buffer{}, after: 2 * time.Second, cancel: cancel}
	err := run(ctx, args, &bytes.Buffer{}, progress)
	require.ErrorContains(t, err, "run again with -state "+dir)

	var out, errs bytes.Buffer
	require.NoError(t, run(t.Context(), args, &out, &errs), "%s\n%s", out.String(), errs.String())
	text := out.String()
	m := regexp.MustCompile(`found (\d+) records already loaded`).FindStringSubmatch(text)
	require.NotNil(t, m, text)
	found, _ := strconv.Atoi(m[1])
	require.Greater(t, found, 0, text)
	require.Equal(t, 2000-found, figure(t, text, "records loaded"), text)
	require.Contains(t, text, fmt.Sprintf(" files, by this run: it resumed a load that had %d records loaded already\n", found), text)
	require.Contains(t, text, fmt.Sprintf(", %d records left at 500 a second)\n", 2000-found), text)
	require.NotContains(t, text, "slow start:")
	require.Contains(t, text, "check:           every id from 1 to 2000 is in")
}

// TestARerunKnowsTheDeadLettersOfEarlierRuns loads with -state through an
// API that fails most requests, so that some records fail for good, and
// runs the program again with the same flags: the second run adds none of
// them to the queue again, counts them as the first did, and its check
// finds every other record in the files exactly once.
func TestARerunKnowsTheDeadLettersOfEarlierRuns(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	args := regexp.MustCompile(`\s+`).Split(fmt.Sprintf("-records 1000 -rate 4000 -api-rate 4000 -batch 50 -fail 0.6 -state %s", dir), -1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errs bytes.Buffer
	err := run(ctx, args, &out, &errs)
	require.Error(t, err, "%s\n%s", out.String(), errs.String())
	dead := figure(t, out.String(), "dead letters")
	require.Greater(t, dead, 0, "no record failed for good:\n%s", out.String())
	require.Contains(t, err.Error(), fmt.Sprintf("%d records failed for good", dead))

	out.Reset()
	errs.Reset()
	err = run(ctx, args, &out, &errs)
	require.Error(t, err, "%s\n%s", out.String(), errs.String())
	text := out.String()
	require.Contains(t, text, fmt.Sprintf("found %d records already loaded", 1000-dead), text)
	require.Contains(t, text, fmt.Sprintf("warehouse: %d records failed for good in earlier runs", dead), text)
	require.Equal(t, dead, figure(t, text, "dead letters"), text)
	require.Equal(t, 0, figure(t, text, "records loaded"), text)
	require.Regexp(t, fmt.Sprintf(`check: +every id from 1 to 1000 is in \d+ files exactly once, but the %d dead letters`, dead), text)
	require.Contains(t, err.Error(), fmt.Sprintf("%d records failed for good", dead))
	t.Logf("%d records failed for good in the first run; the second found them", dead)
}

// cancelAfter cancels once a progress line says the load has run for
// after or more: a line a second, whose instant a loaded machine may make
// late (2.1s rather than 2s).
type cancelAfter struct {
	w      *bytes.Buffer
	after  time.Duration
	cancel func()
}

var progressRE = regexp.MustCompile(`warehouse: ([0-9.]+s): `)

// Write writes p and cancels if it is a progress line of after or more.
func (c *cancelAfter) Write(p []byte) (int, error) {
	if m := progressRE.FindSubmatch(p); m != nil {
		if d, err := time.ParseDuration(string(m[1])); err == nil && d >= c.after {
			c.cancel()
		}
	}
	return c.w.Write(p)
}
