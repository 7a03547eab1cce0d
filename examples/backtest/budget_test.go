package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// budgetFormat is the line budgetReport promises.
var budgetFormat = regexp.MustCompile(`^scenario=\S+ budget=\d+\.\d best-static=\d+/\d+/\d+:\d+\.\d equal=\d+\.\d ratio-best=\d+\.\d% gain-equal=-?\d+\.\d%$`)

// TestTheBudgetMeetsItsTargets runs the budget scenarios at a fifth of
// their duration: where the bottleneck stays put, the budget gets at least
// 95% of the throughput of the best static split of its workers (which it
// has to find, from an equal split, while the queues fill); where it
// moves, at least 20% more than the equal split. A chain behind a rate
// stage runs for half its duration: it takes longer to settle (its first
// stage holds workers while the queues after it fill), and reaches only
// 93% of the best static split in a fifth.
func TestTheBudgetMeetsItsTargets(t *testing.T) {
	if underRace {
		t.Skip("the budget's scenarios take the race detector ten seconds; the plain pass runs them")
	}
	scs := budgetScenarios(0.2)
	for i, sc := range budgetScenarios(0.5) {
		if sc.rate > 0 {
			scs[i] = sc
		}
	}
	outcomes, err := budgetBacktest(scs, 1)
	require.NoError(t, err)
	require.Len(t, outcomes, len(budgetScenarios(1)))
	moving := 0
	for _, o := range outcomes {
		t.Log(o)
		if o.sc.moving {
			moving++
			assert.GreaterOrEqual(t, o.gainEqual(), 20.0, o.sc.name)
		} else {
			assert.GreaterOrEqual(t, o.ratioBest(), 95.0, o.sc.name)
		}
		assert.Greater(t, o.bestThroughput, o.equal, "%s: the equal split is not the best one", o.sc.name)
	}
	assert.Equal(t, 2, moving)
}

// TestTheBudgetNeverGivesOutMoreWorkersThanItHas checks, at every sample
// of every budget run, that the stages' limits add up to the budget.
func TestTheBudgetNeverGivesOutMoreWorkersThanItHas(t *testing.T) {
	for _, sc := range budgetScenarios(0.02) {
		res, err := runSplit(sc, 1, nil)
		require.NoError(t, err)
		require.NotEmpty(t, res.Agents[0].Trace)
		for j := range res.Agents[0].Trace {
			sum := 0
			for _, st := range res.Agents {
				sum += st.Trace[j].Limit
			}
			require.Equal(t, budgetWorkers, sum, "%s at %v", sc.name, res.Agents[0].Trace[j].At)
		}
	}
}

func TestABudgetReportPrintsALineAndAPlotPerScenario(t *testing.T) {
	if underRace {
		t.Skip("drawing the plots takes the race detector ten seconds; the plain pass runs it")
	}
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, budgetReport(&out, io.Discard, 1, 0.01, dir))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	scs := budgetScenarios(1)
	require.Len(t, lines, len(scs))
	for i, l := range lines {
		assert.Regexp(t, budgetFormat, l)
		assert.True(t, strings.HasPrefix(l, "scenario="+scs[i].name+" "), l)
		png, err := os.ReadFile(filepath.Join(dir, "budget-"+scs[i].name+".png"))
		require.NoError(t, err)
		assert.True(t, bytes.HasPrefix(png, []byte("\x89PNG")), scs[i].name)
	}
}

func TestTheSameSeedPrintsTheSameBudgetReport(t *testing.T) {
	var a, b bytes.Buffer
	require.NoError(t, budgetReport(&a, io.Discard, 7, 0.01, ""))
	require.NoError(t, budgetReport(&b, io.Discard, 7, 0.01, ""))
	assert.Equal(t, a.String(), b.String())
}

func TestSplitsAreEveryWayToShareTheWorkers(t *testing.T) {
	all := splits(12, 3)
	assert.Len(t, all, 55) // 11 choose 2
	seen := map[[3]int]bool{}
	for _, s := range all {
		require.Len(t, s, 3)
		assert.Equal(t, 12, s[0]+s[1]+s[2])
		assert.True(t, s[0] >= 1 && s[1] >= 1 && s[2] >= 1, "%v", s)
		seen[[3]int(s)] = true
	}
	assert.Len(t, seen, 55)
	assert.Equal(t, [][]int{{3}}, splits(3, 1))
	assert.Equal(t, []int{4, 4, 4}, equalSplit(12, 3))
	assert.Equal(t, []int{3, 3, 2}, equalSplit(8, 3))
}
