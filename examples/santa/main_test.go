package main

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// row matches one strategy's line of the summary.
var row = regexp.MustCompile(`^\s*(\w+)\s+(\d+) of (\d+)\s+(\S+)\s+(\S+)\s+(\d+)\s+(\d+\.\d)\s+(\d+\.\d)\s+(none|\d+)\s+(\S+)$`)

// line parses one strategy's line of the summary.
func parseLine(t *testing.T, s string) line {
	t.Helper()
	m := row.FindStringSubmatch(s)
	require.NotNil(t, m, "a strategy's line: %q", s)
	atoi := func(s string) int { n, err := strconv.Atoi(s); require.NoError(t, err); return n }
	dur := func(s string) time.Duration { d, err := time.ParseDuration(s); require.NoError(t, err); return d }
	num := func(s string) float64 { f, err := strconv.ParseFloat(s, 64); require.NoError(t, err); return f }
	l := line{name: m[1], done: atoi(m[2]), arrived: atoi(m[3]), p50: dur(m[4]), p99: dur(m[5]), peak: atoi(m[6]),
		mean: num(m[7]), final: num(m[8]), end: dur(m[10])}
	if m[9] != "none" {
		l.limit = atoi(m[9])
	}
	return l
}

func TestAShortRunComparesTheThreeStrategiesOnTheSameJobs(t *testing.T) {
	file := filepath.Join(t.TempDir(), "santa.png")
	args := []string{"-duration", "300ms", "-interval", "20ms", "-max-batch", "20", "-seed", "7",
		"-limit", "1", "-job", "2ms", "-plot", file}
	var out, progress bytes.Buffer
	require.NoError(t, run(t.Context(), args, &out, &progress))

	n := total(arrivals(7, 300*time.Millisecond, 20*time.Millisecond, 20))
	text := out.String()
	assert.Contains(t, text, "santa: "+strconv.Itoa(n)+" jobs in 15 batches of 0 to 20, one every 20ms for 300ms (seed 7)")
	assert.Regexp(t, `santa: one job factorises the prime \d+ by trial division: \S+ on one core`, text)
	assert.Contains(t, text, "santa: wrote "+file)
	lines := strings.Split(text, "\n")
	i := slicesIndex(lines, func(s string) bool { return strings.Contains(s, "strategy") && strings.Contains(s, "p99") })
	require.GreaterOrEqual(t, i, 0, text)
	require.Greater(t, len(lines), i+3, text)
	var got []line
	for _, s := range lines[i+1 : i+4] {
		got = append(got, parseLine(t, s))
	}

	for k, name := range []string{"naive", "fixed", "adaptive"} {
		l := got[k]
		assert.Equal(t, name, l.name)
		assert.Equal(t, n, l.arrived, "%s: every strategy sees the same jobs", name)
		assert.Equal(t, n, l.done, "%s: every job is done", name)
		assert.Positive(t, l.p50, name)
		assert.LessOrEqual(t, l.p50, l.p99, name)
		assert.GreaterOrEqual(t, l.end, 300*time.Millisecond, "%s: a run lasts at least -duration", name)
		assert.Contains(t, progress.String(), "santa: "+name+": arrivals over")
		assert.Contains(t, progress.String(), "santa: "+name+": all "+strconv.Itoa(n)+" jobs done after")
	}
	naive, fixed, adaptive := got[0], got[1], got[2]
	assert.Zero(t, naive.peak, "naive starts every job as it arrives")
	assert.Zero(t, naive.limit, "naive has no limit")
	assert.Positive(t, fixed.peak, "with a limit of 1, batches of up to 20 jobs queue")
	assert.Equal(t, 1, fixed.limit)
	assert.LessOrEqual(t, fixed.mean, 1.0)
	assert.LessOrEqual(t, fixed.final, 1.0)
	assert.GreaterOrEqual(t, adaptive.limit, 1)
	assert.LessOrEqual(t, adaptive.final, float64(adaptive.limit)+1, "no more running than the limit, give or take a change of limit")

	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	assert.Greater(t, img.Bounds().Dy(), img.Bounds().Dx()/2, "three panels, one above the other")
}

// slicesIndex returns the index of the first s in ss for which f is true,
// or -1.
func slicesIndex(ss []string, f func(string) bool) int {
	for i, s := range ss {
		if f(s) {
			return i
		}
	}
	return -1
}

func TestBadFlagsAreRefusedByName(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-duration", "0s"}, "-duration must be above 0 and at most 24h0m0s, got 0s"},
		{[]string{"-duration", "soon"}, `invalid value "soon" for flag -duration`},
		{[]string{"-interval", "-1s"}, "-interval must be above 0, got -1s"},
		{[]string{"-interval", "1ns"}, "-interval 1ns makes 60000000000 batches"},
		{[]string{"-max-batch", "-3"}, "-max-batch must not be negative, got -3"},
		{[]string{"-max-batch", "1000000"}, "-max-batch 1000000 with 60 batches could bring more than 10000000 jobs"},
		{[]string{"-limit", "0"}, "-limit must be between 1 and 10000, got 0"},
		{[]string{"-job", "1ns"}, "-job must be between 10µs and 5s, got 1ns"},
		{[]string{"-seed", "-1"}, `invalid value "-1" for flag -seed`},
		{[]string{"-plot", "santa.jpg"}, `-plot must name a .png file, got "santa.jpg"`},
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"-duration", "1s", "extra"}, `unexpected argument "extra"`},
	} {
		var out, errs bytes.Buffer
		err := run(t.Context(), tc.args, &out, &errs)
		require.Error(t, err, tc.args)
		assert.Contains(t, err.Error(), tc.want)
		assert.Empty(t, out.String(), "nothing runs")
		assert.Equal(t, 2, exitCode(err, &errs), tc.args)
		assert.Contains(t, errs.String(), "santa: "+err.Error()+"\nrun santa -h for the flags\n")
	}
}

func TestAPlotThatCannotBeWrittenIsRefusedBeforeTheRun(t *testing.T) {
	start := time.Now()
	var out, errs bytes.Buffer
	// Ten minutes of arrivals, were the plot not refused first.
	err := run(t.Context(), []string{"-duration", "10m", "-plot", filepath.Join(t.TempDir(), "no", "santa.png")}, &out, &errs)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-plot: ")
	assert.Less(t, time.Since(start), 5*time.Second, "refused before any work")
	assert.Empty(t, out.String(), "nothing runs")
	assert.Equal(t, 1, exitCode(err, &errs))
}

func TestHelpPrintsTheUsageAndSucceeds(t *testing.T) {
	var out, errs bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-h"}, &out, &errs))
	assert.True(t, strings.HasPrefix(out.String(), "usage: santa [flags]\n\nBatches of 0 to -max-batch identical jobs"), "what it does comes first: %s", out.String())
	for _, f := range []string{"-duration", "-interval", "-max-batch", "-seed", "-limit", "-job", "-plot", "about 4 minutes"} {
		assert.Contains(t, out.String(), f)
	}
	assert.Equal(t, 0, exitCode(nil, &errs))
	assert.Equal(t, 1, exitCode(errors.New("boom"), &errs))
}

func TestAnInterruptedRunStopsEveryJobAndRemovesThePlot(t *testing.T) {
	file := filepath.Join(t.TempDir(), "santa.png")
	ctx, cancel := context.WithCancel(t.Context())
	var out bytes.Buffer
	// Cancel a moment after naive starts, whatever the jobs are doing then.
	progress := &cancelOn{w: &out, s: "santa: naive: a goroutine", cancel: func() { time.AfterFunc(100*time.Millisecond, cancel) }}
	err := run(ctx, []string{"-duration", "10m", "-interval", "10ms", "-max-batch", "10", "-job", "2ms", "-plot", file}, &out, progress)
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "naive: ")
	_, err = os.Stat(file)
	assert.ErrorIs(t, err, os.ErrNotExist)
	// TestMain checks that no job, agent or timer outlives run.
}

func TestAnInterruptedAgentStopsItsJobs(t *testing.T) {
	rt := agent.NewRuntime()
	defer func() { assert.NoError(t, rt.Shutdown(context.Background())) }()
	w := workload{prime: nextPrime(1 << 46)} // some 4 million divisions: a few tens of milliseconds
	for _, s := range strategies(2, 1)[1:] {
		ctx, cancel := context.WithCancel(t.Context())
		var out bytes.Buffer
		tr := &trial{s: s, plan: arrivals(1, time.Hour, 10*time.Millisecond, 10), duration: time.Hour,
			every: 10 * time.Millisecond, progress: 1, log: &cancelOn{w: &out, s: " of 1h0m0s: ", cancel: cancel}}
		start := time.Now()
		_, err := tr.run(ctx, rt, w)
		require.ErrorIs(t, err, context.Canceled, s.name)
		assert.Contains(t, err.Error(), s.name+": ")
		assert.Less(t, time.Since(start), time.Minute, "%s: the jobs are cancelled, not waited for", s.name)
	}
	// TestMain checks that no job outlives the agents.
}

// cancelOn is a writer that calls cancel once what is written contains s.
type cancelOn struct {
	w      *bytes.Buffer
	s      string
	cancel func()
}

// Write writes p and cancels if it contains s.
func (c *cancelOn) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(c.s)) {
		c.cancel()
	}
	return c.w.Write(p)
}
