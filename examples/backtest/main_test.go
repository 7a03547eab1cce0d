package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// format is the line the backtest promises.
var format = regexp.MustCompile(`^scenario=\S+ controller=\S+ efficiency=\d+\.\d% converge=\d+ drift=\d+ p99=\S+ p99e2e=\S+$`)

func TestAShortRunPrintsEveryLine(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"-scale", "0.01"}, &out, io.Discard))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	scs := scenarios(1)
	budgets := budgetScenarios(1)
	require.Len(t, lines, len(scs)*(1+len(controllers()))+len(budgets))
	for i, l := range lines[len(lines)-len(budgets):] {
		assert.True(t, strings.HasPrefix(l, "scenario="+budgets[i].name+" budget="), "the budget's lines come last: %s", l)
	}
	lines = lines[:len(lines)-len(budgets)]
	for i, l := range lines {
		assert.Regexp(t, format, l)
		sc := scs[i/(1+len(controllers()))]
		assert.True(t, strings.HasPrefix(l, "scenario="+sc.name+" "), l)
		if i%(1+len(controllers())) == 0 {
			assert.Contains(t, l, "controller=fixed-")
			assert.Contains(t, l, "efficiency=100.0%")
		}
	}
}

func TestAPlotIsAPNG(t *testing.T) {
	reports, err := backtest(scenarios(0.01)[:1], controllers()[:2], 1)
	require.NoError(t, err)
	dir := t.TempDir()
	path, err := draw(reports[0], dir)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "knee8.png"), path)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")))
}

func TestAPlotRunNamesEveryFileItWrites(t *testing.T) {
	if underRace {
		t.Skip("drawing the plots takes the race detector half a minute; the plain pass runs it")
	}
	dir := t.TempDir()
	var out, log bytes.Buffer
	require.NoError(t, run([]string{"-scale", "0.01", "-plot", dir}, &out, &log))
	var plain bytes.Buffer
	require.NoError(t, run([]string{"-scale", "0.01"}, &plain, io.Discard))
	assert.Equal(t, plain.String(), out.String(), "the paths go to the log, not among the results")
	files, err := filepath.Glob(filepath.Join(dir, "*.png"))
	require.NoError(t, err)
	require.Len(t, files, len(scenarios(1))+len(budgetScenarios(1)))
	wrote := strings.Split(strings.TrimSpace(log.String()), "\n")
	require.Len(t, wrote, len(files), log.String())
	for _, f := range files {
		assert.Contains(t, wrote, "backtest: wrote "+f)
	}
}

func TestUnderAFloodTheLowerPanelIsThroughputNotTheEndlessBacklog(t *testing.T) {
	for _, sc := range scenarios(1) {
		title, _, _ := sc.waiting()
		_, flood := sc.arrivals.(sim.Flood)
		assert.Equal(t, flood, strings.HasPrefix(title, "throughput"), "%s: %s", sc.name, title)
	}
	// 10 items done per sample, every 10 ms: 1000 a second, from the first
	// sample a span after the start.
	var rows [][3]int
	for range 10 {
		rows = append(rows, [3]int{1, 0, 0})
	}
	tr := trace(rows)
	for i := range tr {
		tr[i].Done = int64(10 * i)
	}
	pts := throughput(3 * every)(tr)
	require.Len(t, pts, 7)
	assert.InDelta(t, 0.03, pts[0].X, 1e-9)
	for _, p := range pts {
		assert.InDelta(t, 1000, p.Y, 1e-6)
	}
}

func TestMarkdownHasATableForEachMeasure(t *testing.T) {
	reports, err := backtest(scenarios(0.01)[:2], controllers()[:2], 1)
	require.NoError(t, err)
	var out bytes.Buffer
	markdown(reports, &out)
	md := out.String()
	assert.Equal(t, 4, strings.Count(md, "| controller | knee8 | knee32 |\n|---|---|---|\n| best fixed limit |"), md)
	assert.Contains(t, md, "\n| hill | ")
	assert.Contains(t, md, "| best fixed limit | 100.0 | 100.0 |\n")
	assert.Regexp(t, `\| best fixed limit \| \S+ \(8\) \| \S+ \(\d+\) \|`, md, "the fixed limit's own measures name it")
}

func TestTheSweepPrintsEverySettingAndChoosesTheBestMean(t *testing.T) {
	fams := []family{
		{"aimd", []adaptive.Controller{AIMD{Timeout: time.Second}, AIMD{Timeout: 15 * time.Millisecond}}},
		{"vegas", []adaptive.Controller{Vegas{}}},
	}
	var out bytes.Buffer
	require.NoError(t, sweep(scenarios(0.02)[:2], fams, 1, &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 5, out.String())
	assert.Regexp(t, `^sweep controller=aimd settings="timeout=1s backoff=0.9" mean=\d+\.\d% worst=\d+\.\d% \(knee\d+\)$`, lines[0])
	assert.Contains(t, lines[1], `settings="timeout=15ms backoff=0.9"`)
	assert.Contains(t, lines[2], "sweep controller=vegas")
	// A timeout of a second never fires here: the limit climbs far past the
	// knee, and the 15ms one wins.
	assert.Contains(t, lines[3], `chosen controller=aimd settings="timeout=15ms backoff=0.9"`)
	assert.True(t, strings.HasPrefix(lines[4], "chosen controller=vegas "))
	var help bytes.Buffer
	require.NoError(t, run([]string{"-h"}, &help, io.Discard))
	assert.Contains(t, help.String(), "-sweep")
}

func TestTheSameSeedPrintsTheSameTable(t *testing.T) {
	var a, b bytes.Buffer
	require.NoError(t, run([]string{"-scale", "0.005", "-seed", "9"}, &a, io.Discard))
	require.NoError(t, run([]string{"-scale", "0.005", "-seed", "9"}, &b, io.Discard))
	assert.Equal(t, a.String(), b.String())
	var help bytes.Buffer
	require.NoError(t, run([]string{"-h"}, &help, io.Discard))
	assert.Contains(t, help.String(), "-plot")
}

func TestBadFlagsAreRefusedByNameWithExitStatus2(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-scale", "0"}, "-scale must be above 0 and at most 100, got 0"},
		{[]string{"-scale", "101"}, "-scale must be above 0 and at most 100, got 101"},
		{[]string{"-seed", "x"}, `invalid value "x" for flag -seed`},
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"-scale", "0.01", "out"}, `unexpected argument "out"`},
		{[]string{"-sweep", "-plot", t.TempDir()}, "-sweep does not go with -plot or -markdown"},
	} {
		var out, log, errs bytes.Buffer
		err := run(tc.args, &out, &log)
		require.Error(t, err, tc.args)
		assert.Contains(t, err.Error(), tc.want)
		assert.Empty(t, out.String()+log.String(), "nothing runs: %v", tc.args)
		assert.Equal(t, 2, exitCode(err, &errs), tc.args)
		assert.Equal(t, "backtest: "+err.Error()+"\nrun backtest -h for the flags\n", errs.String())
	}
}

func TestAPlotDirThatCannotBeWrittenIsRefusedBeforeTheRun(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	start := time.Now()
	var out, log, errs bytes.Buffer
	// A scale of 100 would take minutes: the check comes first.
	err := run([]string{"-scale", "100", "-plot", filepath.Join(file, "plots")}, &out, &log)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-plot: ")
	assert.Less(t, time.Since(start), 5*time.Second, "refused before any work")
	assert.Empty(t, out.String()+log.String())
	assert.Equal(t, 1, exitCode(err, &errs))
	assert.Equal(t, "backtest: "+err.Error()+"\n", errs.String())

	dir := filepath.Join(t.TempDir(), "new", "plots")
	require.NoError(t, writable(dir), "made if need be")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "the check leaves nothing behind")
}

func TestHelpSaysWhatItDoesThenTheFlags(t *testing.T) {
	var out, log, errs bytes.Buffer
	require.NoError(t, run([]string{"-h"}, &out, &log))
	help := out.String()
	assert.True(t, strings.HasPrefix(help, "usage: backtest [flags]\n\nCompares controllers of the adaptive agent"), help)
	for _, f := range []string{"-seed", "-scale", "-plot", "-markdown", "-sweep"} {
		assert.Contains(t, help, "\n  "+f+" ")
	}
	assert.Empty(t, log.String())
	assert.Equal(t, 0, exitCode(nil, &errs))
	assert.Empty(t, errs.String())
}

func TestDriftIsTheLargestRiseOnceNothingIsQueued(t *testing.T) {
	tr := trace([][3]int{{8, 3, 0}, {8, 0, 0}, {7, 0, 0}, {9, 0, 0}, {8, 0, 0}})
	assert.Equal(t, 1, drift(tr, 0), "from the first sample with nothing queued, at 8, the limit reached 9")
	assert.Equal(t, 0, drift(trace([][3]int{{4, 1, 0}}), 0))
}

func TestConvergeCountsToTheLastStrayingWindow(t *testing.T) {
	// 10 completions per sample for 5 samples, then 20 per sample.
	var rows [][3]int
	for i := range 40 {
		rows = append(rows, [3]int{1, 0, min(i, 5)*10 + max(i-5, 0)*20})
	}
	tr := trace(rows)
	assert.Equal(t, int64(40), converge(tr, 0, 2*every), "the last window off by more than 5% spans samples 4 to 6")
}

// Example runs the backtest on scenarios a hundredth of their usual length
// (0.3 virtual seconds for this one) and prints the lines for overload with
// the knee at 8. The first line of a scenario is the best fixed limit's. In
// so short a run, the time a controller takes to find the knee weighs
// heavily, and the windowed controllers have seen two or three windows; at
// the usual length hill's efficiency here is about 99%, the baselines'
// between 50% and 97%.
func Example() {
	var out bytes.Buffer
	if err := run([]string{"-scale", "0.01"}, &out, io.Discard); err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "scenario=knee8 ") {
			fmt.Println(l)
		}
	}
	// Output:
	// scenario=knee8 controller=fixed-8 efficiency=100.0% converge=232 drift=0 p99=10ms p99e2e=89.1ms
	// scenario=knee8 controller=hill efficiency=83.2% converge=193 drift=0 p99=29.9ms p99e2e=134.2ms
	// scenario=knee8 controller=santa efficiency=50.0% converge=116 drift=0 p99=10ms p99e2e=169.9ms
	// scenario=knee8 controller=aimd efficiency=52.6% converge=122 drift=0 p99=47.2ms p99e2e=205.5ms
	// scenario=knee8 controller=aimd-windowed efficiency=69.4% converge=161 drift=0 p99=10ms p99e2e=138.4ms
	// scenario=knee8 controller=gradient2 efficiency=87.1% converge=202 drift=0 p99=21.2ms p99e2e=111.1ms
	// scenario=knee8 controller=gradient2-windowed efficiency=69.4% converge=161 drift=0 p99=10ms p99e2e=138.4ms
	// scenario=knee8 controller=vegas efficiency=83.6% converge=194 drift=0 p99=33ms p99e2e=129ms
	// scenario=knee8 controller=vegas-windowed efficiency=71.6% converge=166 drift=0 p99=14ms p99e2e=155.2ms
}

// trace builds a trace sampled every period from rows of limit, queued and
// emitted.
func trace(rows [][3]int) sim.Trace {
	t := make(sim.Trace, len(rows))
	for i, r := range rows {
		t[i] = sim.Sample{At: time.Duration(i) * every, Limit: r[0], Queued: r[1], Emitted: int64(r[2])}
	}
	return t
}
