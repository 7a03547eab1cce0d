package chain

import (
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/stretchr/testify/assert"
)

func TestGateKeepsTheNewestAndPassesOnWithDemand(t *testing.T) {
	tr := agenttest.Run(evolveGate[int], gate[int]{bound: 3},
		agenttest.Step{Msg: agent.Pull{N: 2}},
		agenttest.Step{Msg: agent.Input[int]{Items: []int{1}}},
		agenttest.Step{Msg: agent.Input[int]{Items: []int{2, 3, 4, 5, 6}}},
		agenttest.Step{Msg: agent.Input[int]{Items: []int{7}}},
		agenttest.Step{Msg: agent.Pull{N: 5}},
		agenttest.Step{Msg: agent.Close{}},
	)
	assert.Equal(t, []int{1}, agenttest.Emitted[int](tr[1].Effects))
	assert.Equal(t, 1, agenttest.Demanded(tr[1].Effects), "a posted item's slot comes back at once")
	assert.Equal(t, []int{2}, agenttest.Emitted[int](tr[2].Effects))
	assert.Equal(t, 5, agenttest.Demanded(tr[2].Effects))
	assert.Equal(t, overflowStatus{Load: agent.Load{Queued: 3, Done: 2}, Bound: 3, Dropped: 1}, tr[2].State.status())
	assert.Equal(t, overflowStatus{Load: agent.Load{Queued: 3, Done: 2}, Bound: 3, Dropped: 2}, tr[3].State.status())
	assert.Equal(t, []int{5, 6, 7}, agenttest.Emitted[int](tr[4].Effects))
	assert.Equal(t, []agent.Effect{agent.Finish{}}, tr[5].Effects)
}

func TestTheGateDoesNotTakeWhatItDoesNotKnow(t *testing.T) {
	_, fx := evolveGate(gate[int]{bound: 3}, agent.Done[int]{ID: 1})
	assert.Equal(t, []agent.Effect{agent.Unhandled{}}, fx)
}

func TestTheGateLeavesTheStateItWasGivenAsItWas(t *testing.T) {
	s := gate[int]{bound: 8}
	for i := range 3 {
		s, _ = evolveGate(s, agent.Input[int]{Items: []int{i + 1}})
	}
	a, _ := evolveGate(s, agent.Input[int]{Items: []int{4}})
	b, _ := evolveGate(s, agent.Input[int]{Items: []int{5}}) // the same state, evolved again
	_, fa := evolveGate(a, agent.Pull{N: 8})
	_, fb := evolveGate(b, agent.Pull{N: 8})
	_, fs := evolveGate(s, agent.Pull{N: 8})
	assert.Equal(t, []int{1, 2, 3, 4}, agenttest.Emitted[int](fa))
	assert.Equal(t, []int{1, 2, 3, 5}, agenttest.Emitted[int](fb))
	assert.Equal(t, []int{1, 2, 3}, agenttest.Emitted[int](fs))
}
