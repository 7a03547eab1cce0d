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
// the one before.
func gap(s time.Time, m agent.Msg) (time.Time, []agent.Effect) {
	tick, ok := m.(agent.Tick)
	if !ok {
		return s, nil
	}
	var fx []agent.Effect
	if !s.IsZero() {
		fx = append(fx, agent.Emit[time.Duration]{Values: []time.Duration{tick.At.Sub(s)}}, agent.Demand{N: 1})
	}
	return tick.At, fx
}

func TestRunStampsEachStep(t *testing.T) {
	tr := agenttest.Run(gap, time.Time{},
		agenttest.Step{At: 0, Msg: agent.Tick{}},
		agenttest.Step{At: 3 * time.Second, Msg: agent.Tick{}},
		agenttest.Step{At: 4 * time.Second, Msg: agent.Close{}},
		agenttest.Step{At: 10 * time.Second, Msg: agent.Tick{}},
	)
	assert.Len(t, tr, 4)
	assert.Equal(t, agenttest.T0, tr[0].State)
	assert.Equal(t, []time.Duration{3 * time.Second}, agenttest.Emitted[time.Duration](tr[1].Effects))
	assert.Empty(t, tr[2].Effects)
	assert.Equal(t, 1, agenttest.Demanded(tr[3].Effects))
	assert.Equal(t, agenttest.T0.Add(10*time.Second), agenttest.Last(tr))
	assert.Len(t, agenttest.Of[agent.Emit[time.Duration]](tr[3].Effects), 1)
	assert.Nil(t, agenttest.Of[agent.Timer](tr[3].Effects))
}

func TestLastOfNothingIsZero(t *testing.T) {
	assert.Equal(t, 0, agenttest.Last[int](nil))
}

// Run replays a table of steps against an evolve function and returns the
// state and effects after each.
func ExampleRun() {
	tr := agenttest.Run(gap, time.Time{},
		agenttest.Step{At: 0, Msg: agent.Tick{}},
		agenttest.Step{At: 1500 * time.Millisecond, Msg: agent.Tick{}},
	)
	fmt.Println(agenttest.Emitted[time.Duration](tr[1].Effects))
	// Output: [1.5s]
}
