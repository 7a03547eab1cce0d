package agenttest_test

import (
	"slices"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/stretchr/testify/assert"
)

// tally is a state updated in place: evolve appends the items it is given
// to the tally the pointer names, and returns the same pointer.
type tally struct{ seen []string }

// add takes m, an Input of strings.
func (t *tally) add(m agent.Msg) []agent.Effect {
	in, ok := m.(agent.Input[string])
	if !ok {
		return []agent.Effect{agent.Unhandled{}}
	}
	t.seen = append(t.seen, in.Items...)
	return []agent.Effect{agent.Demand{N: len(in.Items)}}
}

// cloneable is a tally that can be copied.
type cloneable struct{ tally }

func (c *cloneable) Clone() *cloneable { return &cloneable{tally{seen: slices.Clone(c.seen)}} }

func input(xs ...string) agenttest.Step { return agenttest.Step{Msg: agent.Input[string]{Items: xs}} }

func TestRunClonesAStateWithAClone(t *testing.T) {
	start := &cloneable{}
	tr := agenttest.Run(func(c *cloneable, m agent.Msg) (*cloneable, []agent.Effect) { return c, c.add(m) },
		start, input("a"), input("b", "c"), input("d"))
	assert.Equal(t, []string{"a"}, tr[0].State.seen)
	assert.Equal(t, []string{"a", "b", "c"}, tr[1].State.seen)
	assert.Equal(t, []string{"a", "b", "c", "d"}, agenttest.Last(tr).seen)
	assert.Equal(t, 2, agenttest.Demanded(tr[1].Effects))
	assert.Empty(t, start.seen, "the first state is left as it was")
}

func TestRunPassesOnAStateWithoutAClone(t *testing.T) {
	start := &tally{}
	tr := agenttest.Run(func(s *tally, m agent.Msg) (*tally, []agent.Effect) { return s, s.add(m) },
		start, input("a"), input("b"))
	assert.Same(t, start, tr[0].State)
	assert.Equal(t, []string{"a", "b"}, tr[0].State.seen, "every Trace shows the state after the last step")
}
