package rate_test

import (
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/rate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sharedStub is a Shared limit the tables do not join: they step Evolve.
type sharedStub struct{}

func (sharedStub) Join(func(rate.Limit) bool) (func(int, int), func()) {
	return func(int, int) {}, func() {}
}

// grant is the Set of a share of r a second and burst b, until the table's
// instant until.
func grant(r float64, b int, until time.Duration) agent.Set[rate.Limit] {
	return agent.Set[rate.Limit]{Value: rate.Limit{Rate: r, Burst: b, Until: agenttest.T0.Add(until)}}
}

// uses returns how many reports of its use fx holds: the effects that are
// not the bucket's own (emits, demand, timers).
func uses(fx []agent.Effect) int {
	return len(fx) - len(agenttest.Of[agent.Timer](fx)) - len(agenttest.Of[agent.Disarm](fx)) -
		len(agenttest.Of[agent.Emit[int]](fx)) - len(agenttest.Of[agent.Demand](fx))
}

// A rate agent of a shared limit starts with no token and spends only the
// shares it is granted, within their leases: after a lease lapses nothing
// passes, and no timer waits for tokens that will not come, until the next
// grant; it reports its use after every grant, and once when items wait
// with no token to come.
func TestASharedLimitsAgentSpendsOnlyWithinItsLease(t *testing.T) {
	s, err := rate.NewState(rate.Config[int]{Rate: 100, Burst: 10, Shared: sharedStub{}})
	require.NoError(t, err)
	tr := play(t, s, []step{
		{at: t0, msg: unbounded},
		{at: t0, msg: in(1, 2, 3)}, // no share yet: they wait
		{at: t1, msg: in(4)},
		{at: t1, msg: grant(10, 2, 5*d), timers: timer(1, d)}, // a share, from an empty bucket
		{at: t2, msg: tick(1), out: []int{1}, timers: timer(2, d)},
		{at: t3, msg: tick(2), out: []int{2}, timers: timer(3, d)},
		{at: t4, msg: tick(3), out: []int{3}}, // 4's token would come as the lease lapses: none
		{at: t5, msg: in(5, 6)},
		{at: t9, msg: in(7)}, // however long they wait
		{at: t9, msg: grant(10, 1, 20*d), timers: timer(4, d)},
		{at: t9 + d/2, msg: agent.Set[rate.Limit]{}}, // no share: the timer goes
	})
	assert.Equal(t, 1, uses(tr[1].Effects), "it says items wait with no token to come")
	assert.Zero(t, uses(tr[2].Effects), "once")
	assert.Equal(t, 1, uses(tr[3].Effects), "it answers a grant with its use")
	assert.Equal(t, 1, uses(tr[6].Effects), "it says so again once no token comes before its lease lapses")
	assert.Zero(t, uses(tr[7].Effects)+uses(tr[8].Effects), "once")
	assert.Equal(t, 1, uses(tr[9].Effects))
	assert.Contains(t, tr[10].Effects, agent.Effect(agent.Disarm{Tag: 4}))
	assert.Zero(t, tr[8].State.Status(agenttest.T0.Add(t9)).Tokens, "a lapsed lease holds no token")
	st := tr[3].State.Status(agenttest.T0.Add(t1))
	assert.True(t, st.Shared)
	assert.Equal(t, 10.0, st.Rate, "its grant's rate")
	assert.True(t, s.Status(agenttest.T0).Shared, "a shared limit's agent says so before its first grant")
}

func TestASharedLimitTakesNoCost(t *testing.T) {
	_, err := rate.NewState(rate.Config[int]{Rate: 100, Burst: 10, Shared: sharedStub{}, Cost: func(int) float64 { return 2 }})
	assert.ErrorIs(t, err, rate.ErrConfig)
	assert.ErrorContains(t, err, "cost must be nil with a shared limit")
}

// Items that downstream does not want yet wait for demand, not tokens: an
// agent of a shared limit says nothing of them until they are wanted.
func TestASharedLimitsAgentCountsOnlyWantedItemsAsWaiting(t *testing.T) {
	s, err := rate.NewState(rate.Config[int]{Rate: 100, Burst: 10, Shared: sharedStub{}})
	require.NoError(t, err)
	tr := play(t, s, []step{
		{at: t0, msg: in(1, 2)},
		{at: t1, msg: agent.Pull{N: 1}},
	})
	assert.Zero(t, uses(tr[0].Effects), "no item is wanted")
	assert.Equal(t, 1, uses(tr[1].Effects), "one is wanted, and waits for a token")
}

// Plain values, as a chain's stage before it sends them, that come after a
// grant of nothing wait with no token to come: the agent says so at once,
// rather than at its share's renewal.
func TestASharedLimitsAgentAsksForPlainValuesThatWait(t *testing.T) {
	s, err := rate.NewState(rate.Config[int]{Rate: 100, Burst: 10, Shared: sharedStub{}})
	require.NoError(t, err)
	tr := play(t, s, []step{
		{at: t0, msg: unbounded},
		{at: t0, msg: agent.Set[rate.Limit]{}},
		{at: t1, msg: agent.Input[int]{Items: []int{1, 2, 3}}},
	})
	assert.Equal(t, 1, uses(tr[2].Effects), "it says items wait with no token to come")
}
