package agenttest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/stretchr/testify/assert"
)

// gap remembers the instant of the last tick and emits how far it was from
// the one before, giving an input slot back for it; it finishes on Close.
func gap(s time.Time, m agent.Msg) (time.Time, []agent.Effect) {
	switch m := m.(type) {
	case agent.Tick:
		var fx []agent.Effect
		if !s.IsZero() {
			fx = append(fx, agent.Emit[time.Duration]{Values: []time.Duration{m.At.Sub(s)}}, agent.Demand{N: 1})
		}
		return m.At, fx
	case agent.Close:
		return s, []agent.Effect{agent.Finish{}}
	}
	return s, []agent.Effect{agent.Unhandled{}}
}

func TestRunStampsEachStep(t *testing.T) {
	tr := agenttest.Run(gap, time.Time{},
		agenttest.Step{At: 0, Msg: agent.Tick{}},
		agenttest.Step{At: 3 * time.Second, Msg: agent.Tick{}},
		agenttest.Step{At: 10 * time.Second, Msg: agent.Tick{}},
		agenttest.Step{At: 11 * time.Second, Msg: agent.Close{}},
	)
	assert.Len(t, tr, 4)
	assert.Equal(t, agenttest.T0, tr[0].State)
	assert.Empty(t, tr[0].Effects)
	assert.Equal(t, []time.Duration{3 * time.Second}, agenttest.Emitted[time.Duration](tr[1].Effects))
	assert.Equal(t, []time.Duration{7 * time.Second}, agenttest.Emitted[time.Duration](tr[2].Effects))
	assert.Equal(t, 1, agenttest.Demanded(tr[2].Effects))
	assert.Len(t, agenttest.Of[agent.Emit[time.Duration]](tr[2].Effects), 1)
	assert.Nil(t, agenttest.Of[agent.Timer](tr[2].Effects))
	assert.Equal(t, []agent.Effect{agent.Finish{}}, tr[3].Effects)
	assert.Equal(t, agenttest.T0.Add(10*time.Second), agenttest.Last(tr), "Close leaves the state as it was")
}

func TestLastOfNothingIsZero(t *testing.T) {
	assert.Equal(t, 0, agenttest.Last[int](nil))
}

func TestOfAndDemandedFindNothingInNoEffects(t *testing.T) {
	assert.Nil(t, agenttest.Of[agent.Demand](nil))
	assert.Nil(t, agenttest.Emitted[int]([]agent.Effect{agent.Demand{N: 2}}))
	assert.Zero(t, agenttest.Demanded([]agent.Effect{agent.Emit[int]{Values: []int{1}}}))
	assert.Equal(t, 5, agenttest.Demanded([]agent.Effect{agent.Demand{N: 2}, agent.Finish{}, agent.Demand{N: 3}}))
}

func TestRunPanicsAtAStepEvolveDoesNotHandle(t *testing.T) {
	for _, c := range []struct {
		msg  agent.Msg
		want string
	}{
		{agent.Pull{N: 1}, "agenttest: step 2: evolve did not handle agent.Pull"},
		{agent.Input[string]{Items: []string{"a"}}, "agenttest: step 2: evolve did not handle agent.Input[string]"},
		{agent.Done[int]{ID: 1}, "agenttest: step 2: evolve did not handle agent.Done[int]"},
		{agent.Set[time.Duration]{Value: time.Second}, "agenttest: step 2: evolve did not handle agent.Set[time.Duration]"},
	} {
		assert.PanicsWithValue(t, c.want, func() {
			agenttest.Run(gap, time.Time{},
				agenttest.Step{At: 0, Msg: agent.Tick{}},
				agenttest.Step{At: time.Second, Msg: agent.Tick{}},
				agenttest.Step{At: 2 * time.Second, Msg: c.msg},
				agenttest.Step{At: 3 * time.Second, Msg: agent.Tick{}},
			)
		})
	}
}

func TestRunPanicsOnUnhandledAmongOtherEffects(t *testing.T) {
	sloppy := func(s int, _ agent.Msg) (int, []agent.Effect) {
		return s + 1, []agent.Effect{agent.Demand{N: 1}, agent.Unhandled{}}
	}
	assert.PanicsWithValue(t, "agenttest: step 0: evolve did not handle agent.Close", func() {
		agenttest.Run(sloppy, 0, agenttest.Step{Msg: agent.Close{}})
	})
}

func TestEvolveItselfShowsAnUnhandledMessage(t *testing.T) {
	s, fx := gap(agenttest.T0, agent.Stamp(agent.Query{ID: 1}, agenttest.T0.Add(time.Second)))
	assert.Equal(t, agenttest.T0, s, "the state is left as it was")
	assert.Equal(t, []agent.Effect{agent.Unhandled{}}, fx)
}

// Run replays a table of steps against an evolve function and returns the
// state and effects after each.
func ExampleRun() {
	tr := agenttest.Run(gap, time.Time{},
		agenttest.Step{At: 0, Msg: agent.Tick{}},
		agenttest.Step{At: 1500 * time.Millisecond, Msg: agent.Tick{}},
		agenttest.Step{At: 2 * time.Second, Msg: agent.Close{}},
	)
	fmt.Println(agenttest.Emitted[time.Duration](tr[1].Effects))
	fmt.Println(agenttest.Of[agent.Finish](tr[2].Effects))
	// Output:
	// [1.5s]
	// [{<nil>}]
}
