package rate_test

import (
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/internal/pace"
	"github.com/evolvekit/evolve/rate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reserve is a Reservation of n passes.
func reserve(n int) agent.Msg { return pace.In(pace.Reservation{N: n}) }

// last is the Reservation that says the agent after this one has ended.
var last = pace.In(pace.Reservation{Last: true})

// granted sums the passes fx grants.
func granted(fx []agent.Effect) int {
	n := 0
	for _, g := range agenttest.Of[agent.Send[pace.Grant]](fx) {
		n += g.Value.N
	}
	return n
}

func TestPassesAreGrantedAheadOfTheItemsATokenEach(t *testing.T) {
	tr := play(t, start(t, 10, 2), []step{
		{at: t0, msg: unbounded},
		{at: t0, msg: pace.In(pace.Reservation{})},
		{at: t0, msg: in(1, 2, 3), out: []int{1, 2}, timers: timer(1, d)},
		// Two retries reserve their passes: they go before 3.
		{at: t0 + d/2, msg: reserve(2)},
		{at: t1, msg: tick(1), timers: timer(2, d)},
		{at: t2, msg: tick(2), timers: timer(3, d)},
		{at: t3, msg: tick(3), out: []int{3}},
	})
	assert.Equal(t, []int{0, 0, 0, 0, 1, 1, 0}, grants(tr))
	st := agenttest.Last(tr).Status(agenttest.T0.Add(t3))
	assert.Equal(t, 2, st.Granted)
	assert.Zero(t, st.Reserved)
}

func grants(tr []agenttest.Trace[rate.State[int]]) []int {
	out := make([]int, len(tr))
	for i, x := range tr {
		out[i] = granted(x.Effects)
	}
	return out
}

func TestAPassNeedsNoDemand(t *testing.T) {
	tr := play(t, start(t, 10, 1), []step{
		{at: t0, msg: pace.In(pace.Reservation{})},
		{at: t0, msg: in(1)},
		{at: t0, msg: reserve(1)},
	})
	assert.Equal(t, []int{0, 0, 1}, grants(tr), "the item waits for demand, the pass does not")
	assert.Empty(t, agenttest.Of[agent.Timer](tr[2].Effects), "the item has no demand: no timer for it")
}

func TestAPacedAgentFinishesAfterTheAgentItPaces(t *testing.T) {
	tr := play(t, start(t, 10, 1), []step{
		{at: t0, msg: unbounded},
		{at: t0, msg: pace.In(pace.Reservation{})},
		{at: t0, msg: in(1), out: []int{1}},
		{at: t0, msg: agent.Close{}},
		{at: t0, msg: reserve(1), timers: timer(1, d)},
		{at: t1, msg: tick(1)},
		{at: t2, msg: last},
	})
	assert.Equal(t, []agent.Effect{pace.Out(pace.Drained{})}, tr[3].Effects, "closed and drained, but the agent after it may still retry")
	assert.Equal(t, 1, granted(tr[5].Effects), "it still grants passes")
	assert.Equal(t, []agent.Effect{agent.Finish{}}, tr[6].Effects, "that agent has ended: it finishes")
}

func TestTheLastReservationForgetsThePassesOwed(t *testing.T) {
	tr := play(t, start(t, 1, 1), []step{
		{at: t0, msg: pace.In(pace.Reservation{})},
		{at: t0, msg: reserve(3), timers: timer(1, 10*d)},
		{at: t0, msg: agent.Close{}},
		{at: t1, msg: last},
	})
	assert.Equal(t, 1, granted(tr[1].Effects))
	assert.Len(t, agenttest.Of[agent.Timer](tr[1].Effects), 1)
	assert.Equal(t, []agent.Effect{agent.Disarm{Tag: 1}, agent.Finish{}}, tr[3].Effects, "nobody to grant to: the timer goes, and so does the agent")
	st := tr[3].State.Status(agenttest.T0.Add(t1))
	assert.Zero(t, st.Reserved)
}

func TestAnAgentNotPacingFinishesWhenDrained(t *testing.T) {
	tr := play(t, start(t, 10, 1), []step{
		{at: t0, msg: agent.Close{}},
	})
	assert.Equal(t, []agent.Effect{agent.Finish{}}, tr[0].Effects)
	require.Equal(t, 0, granted(tr[0].Effects))
}
