package buffer_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/buffer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type step = agenttest.Step

var evolve = buffer.Evolve[int]

func newState(t *testing.T, cfg buffer.Config[int]) buffer.State[int] {
	t.Helper()
	s, err := buffer.NewState[int](cfg)
	require.NoError(t, err)
	return s
}

func in(items ...int) agent.Input[int]               { return agent.Input[int]{Items: items} }
func done(id uint64) agent.Done[struct{}]            { return agent.Done[struct{}]{ID: id} }
func fail(id uint64, err error) agent.Done[struct{}] { return agent.Done[struct{}]{ID: id, Err: err} }
func start(id uint64, batch ...int) agent.Start[[]int] {
	return agent.Start[[]int]{ID: id, Work: batch}
}
func emit(batch ...int) agent.Emit[[]int] { return agent.Emit[[]int]{Values: [][]int{batch}} }

var unbounded = agent.Pull{N: agent.Unbounded}

func TestFullBatchStartsAFlushAndGivesItsSlotsBack(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, buffer.Config[int]{Size: 3, Queue: 6}),
		step{Msg: unbounded},
		step{Msg: in(1, 2)},
		step{Msg: in(3)},
	)
	assert.Empty(t, tr[1].Effects, "a partial batch without linger waits")
	assert.Equal(t, 2, tr[1].State.Status().Pending)
	assert.Equal(t, []agent.Effect{start(1, 1, 2, 3), agent.Demand{N: 3}}, tr[2].Effects)
	st := tr[2].State.Status()
	assert.Equal(t, 0, st.Pending)
	assert.Equal(t, 0, st.Queued)
	assert.Equal(t, 3, st.InFlight)
}

func TestSecondBatchWaitsForTheFirstFlush(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, buffer.Config[int]{Size: 3}),
		step{Msg: unbounded},
		step{Msg: in(1, 2, 3, 4, 5, 6, 7)},
		step{Msg: done(1)},
		step{Msg: done(2)},
	)
	assert.Equal(t, []agent.Effect{start(1, 1, 2, 3), agent.Demand{N: 3}}, tr[1].Effects)
	st := tr[1].State.Status()
	assert.Equal(t, 1, st.Waiting)
	assert.Equal(t, 4, st.Queued, "the waiting batch and the open one hold their slots")
	assert.Equal(t, []agent.Effect{emit(1, 2, 3), start(2, 4, 5, 6), agent.Demand{N: 3}}, tr[2].Effects)
	assert.Equal(t, []agent.Effect{emit(4, 5, 6)}, tr[3].Effects)
	assert.Equal(t, 2, tr[3].State.Status().Flushed)
	assert.Equal(t, 1, tr[3].State.Status().Pending)
}

func TestLingerTickCutsAPartialBatch(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, buffer.Config[int]{Size: 10, MaxWait: time.Second}),
		step{Msg: unbounded},
		step{At: 100 * time.Millisecond, Msg: in(1)},
		step{At: 400 * time.Millisecond, Msg: in(2)},
		step{At: 1100 * time.Millisecond, Msg: agent.Tick{Tag: 0}},
		step{At: 1200 * time.Millisecond, Msg: in(3)},
	)
	assert.Equal(t, []agent.Effect{agent.Timer{Tag: 0, Delay: time.Second}}, tr[1].Effects)
	assert.Equal(t, agenttest.T0.Add(100*time.Millisecond), tr[2].State.Status().Oldest)
	assert.Empty(t, tr[2].Effects, "one timer per batch")
	assert.Equal(t, []agent.Effect{start(1, 1, 2), agent.Demand{N: 2}}, tr[3].Effects)
	assert.True(t, tr[3].State.Status().Oldest.IsZero())
	assert.Equal(t, []agent.Effect{agent.Timer{Tag: 1, Delay: time.Second}}, tr[4].Effects,
		"the next batch has a timer of its own")
}

func TestStaleTickIsIgnored(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, buffer.Config[int]{Size: 2, MaxWait: time.Second}),
		step{Msg: unbounded},
		step{At: 0, Msg: in(1)},
		step{At: 500 * time.Millisecond, Msg: in(2)},
		step{At: 700 * time.Millisecond, Msg: in(3)},
		step{At: 1000 * time.Millisecond, Msg: agent.Tick{Tag: 0}},
		step{At: 1700 * time.Millisecond, Msg: agent.Tick{Tag: 1}},
		step{At: 1800 * time.Millisecond, Msg: agent.Tick{Tag: 1}},
		step{At: 1900 * time.Millisecond, Msg: done(1)},
	)
	assert.Equal(t, []agent.Effect{agent.Timer{Tag: 0, Delay: time.Second}}, tr[1].Effects)
	assert.Equal(t, []agent.Effect{agent.Disarm{Tag: 0}, start(1, 1, 2), agent.Demand{N: 2}}, tr[2].Effects,
		"cut by size: its timer is disarmed")
	assert.Equal(t, []agent.Effect{agent.Timer{Tag: 1, Delay: time.Second}}, tr[3].Effects)
	assert.Empty(t, tr[4].Effects, "the first batch's timer is stale, should its tick still come")
	assert.Equal(t, tr[3].State, tr[4].State)
	assert.Empty(t, tr[5].Effects, "cut, but it waits for the running flush")
	assert.Equal(t, 1, tr[5].State.Status().Waiting)
	assert.Equal(t, tr[5].State, tr[6].State, "a repeated tick is stale too")
	assert.Empty(t, tr[6].Effects)
	assert.Equal(t, []agent.Effect{emit(1, 2), start(2, 3), agent.Demand{N: 1}}, tr[7].Effects)
}

func TestCloseFlushesTheRemainderThenFinishes(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, buffer.Config[int]{Size: 3, MaxWait: time.Minute}),
		step{Msg: unbounded},
		step{Msg: in(1, 2, 3, 4)},
		step{Msg: agent.Close{}},
		step{Msg: done(1)},
		step{Msg: done(2)},
		step{Msg: agent.Tick{Tag: 1}},
		step{Msg: agent.Close{}},
	)
	assert.Equal(t, []agent.Effect{agent.Disarm{Tag: 1}}, tr[2].Effects,
		"the remainder is cut, and waits for the running flush")
	assert.Equal(t, 1, tr[2].State.Status().Waiting)
	assert.True(t, tr[2].State.Status().Closed)
	assert.Equal(t, []agent.Effect{emit(1, 2, 3), start(2, 4), agent.Demand{N: 1}}, tr[3].Effects)
	assert.Equal(t, []agent.Effect{emit(4), agent.Finish{}}, tr[4].Effects)
	assert.Empty(t, tr[5].Effects, "the remainder's timer is stale")
	assert.Empty(t, tr[6].Effects, "Finish comes once")
}

func TestCloseWhenEmptyFinishesAtOnce(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, buffer.Config[int]{Size: 3}),
		step{Msg: unbounded},
		step{Msg: agent.Close{}},
	)
	assert.Equal(t, []agent.Effect{agent.Finish{}}, tr[1].Effects)
}

func TestInputAfterCloseIsFlushedWithoutASecondFinish(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, buffer.Config[int]{Size: 3}),
		step{Msg: unbounded},
		step{Msg: agent.Close{}},
		step{Msg: in(1)},
		step{Msg: done(1)},
	)
	assert.Equal(t, []agent.Effect{agent.Finish{}}, tr[1].Effects)
	assert.Equal(t, []agent.Effect{start(1, 1), agent.Demand{N: 1}}, tr[2].Effects)
	assert.Equal(t, []agent.Effect{emit(1)}, tr[3].Effects)
}

func TestFailedFlushIsCountedNotEmittedAndFinishCarriesTheFirstError(t *testing.T) {
	first, second := errors.New("first"), errors.New("second")
	panicked := &agent.PanicError{Value: "boom"}
	tr := agenttest.Run(evolve, newState(t, buffer.Config[int]{Size: 1}),
		step{Msg: unbounded},
		step{Msg: in(1, 2, 3, 4)},
		step{Msg: fail(1, first)},
		step{Msg: fail(2, panicked)},
		step{Msg: done(3)},
		step{Msg: agent.Close{}},
		step{Msg: fail(4, second)},
	)
	assert.Equal(t, []agent.Effect{agent.DeadLetter{Seq: 0, Item: 1, Err: first, Attempts: 1}, start(2, 2), agent.Demand{N: 1}}, tr[2].Effects,
		"no Emit: a dead letter, and the next batch")
	assert.Equal(t, []agent.Effect{agent.DeadLetter{Seq: 1, Item: 2, Err: panicked, Attempts: 1}, start(3, 3), agent.Demand{N: 1}}, tr[3].Effects)
	assert.Equal(t, []agent.Effect{emit(3), start(4, 4), agent.Demand{N: 1}}, tr[4].Effects)
	assert.Empty(t, tr[5].Effects)
	assert.Equal(t, []agent.Effect{agent.DeadLetter{Seq: 3, Item: 4, Err: second, Attempts: 1}, agent.Finish{Err: first}}, tr[6].Effects)
	st := tr[6].State.Status()
	assert.Equal(t, 3, st.FailedBatches)
	assert.Equal(t, 3, st.Failed, "items of failed batches")
	assert.Equal(t, 4, st.Done, "items whose flush ended")
	assert.Equal(t, 1, st.Flushed)
	assert.Equal(t, first, st.Err)
	assert.Equal(t, agent.Credit(agent.Unbounded-1), st.Demand, "failed batches use no demand")
}

func TestDemandThrottlesFlushes(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, buffer.Config[int]{Size: 2}),
		step{Msg: in(1, 2, 3, 4, 5, 6)},
		step{Msg: agent.Pull{N: 1}},
		step{Msg: done(1)},
		step{Msg: agent.Pull{N: 1}},
		step{Msg: agent.Pull{N: 5}},
		step{Msg: done(2)},
	)
	assert.Empty(t, tr[0].Effects, "no demand, no flush, no slots back")
	assert.Equal(t, 6, tr[0].State.Status().Queued)
	assert.Equal(t, []agent.Effect{start(1, 1, 2), agent.Demand{N: 2}}, tr[1].Effects)
	assert.Equal(t, []agent.Effect{emit(1, 2)}, tr[2].Effects, "the demand is used up")
	assert.Equal(t, agent.Credit(0), tr[2].State.Status().Demand)
	assert.Equal(t, 2, tr[2].State.Status().Waiting)
	assert.Equal(t, []agent.Effect{start(2, 3, 4), agent.Demand{N: 2}}, tr[3].Effects)
	assert.Empty(t, tr[4].Effects, "one flush at a time, whatever the demand")
	assert.Equal(t, []agent.Effect{emit(3, 4), start(3, 5, 6), agent.Demand{N: 2}}, tr[5].Effects)
	assert.Equal(t, agent.Credit(5), tr[5].State.Status().Demand)
}

func TestQueryRepliesAndChangesNothing(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, buffer.Config[int]{Size: 3, MaxWait: time.Second, Queue: 9}),
		step{Msg: unbounded},
		step{At: time.Second, Msg: in(1, 2, 3, 4)},
		step{At: 2 * time.Second, Msg: agent.Query{ID: 7}},
	)
	want := buffer.Status{
		Load: agent.Load{Queued: 1, InFlight: 3, Demand: agent.Unbounded},
		Size: 3, MaxWait: time.Second, Queue: 9,
		Pending: 1, Oldest: agenttest.T0.Add(time.Second),
	}
	assert.Equal(t, []agent.Effect{agent.Reply[buffer.Status]{To: 7, Value: want}}, tr[2].Effects)
	assert.Equal(t, tr[1].State, tr[2].State)
}

func TestStaleMessagesChangeNothing(t *testing.T) {
	s0 := agenttest.Last(agenttest.Run(evolve, newState(t, buffer.Config[int]{Size: 2, MaxWait: time.Second}),
		step{Msg: unbounded},
		step{Msg: in(1, 2, 3)},
	))
	for _, m := range []agent.Msg{
		done(2),            // not the running flush
		done(0),            // nor this
		agent.Tick{Tag: 7}, // not the open batch's timer
		agent.Tick{Tag: 0}, // an earlier batch's
		agent.Pull{N: 0},   // grants nothing
		agent.Pull{N: -1},  // nor this
	} {
		tr := agenttest.Run(evolve, s0, step{Msg: m})
		assert.Empty(t, tr[0].Effects, "%#v", m)
		assert.Equal(t, s0, tr[0].State, "%#v", m)
	}
}

func TestMessagesOfOtherTypesAreUnhandled(t *testing.T) {
	s0 := agenttest.Last(agenttest.Run(evolve, newState(t, buffer.Config[int]{Size: 2, MaxWait: time.Second}),
		step{Msg: unbounded},
		step{Msg: in(1, 2, 3)},
	))
	for _, m := range []agent.Msg{
		agent.Set[int]{Value: 3},                  // a buffer has no settings to change
		agent.Input[string]{Items: []string{"x"}}, // not its items
		agent.Input[buffer.Item[string]]{Items: []buffer.Item[string]{{Value: "x"}}},
		agent.Done[int]{ID: 1}, // not what its flush returns
		agent.Done[[]int]{ID: 1},
	} {
		next, fx := evolve(s0, agent.Stamp(m, agenttest.T0))
		assert.Equal(t, []agent.Effect{agent.Unhandled{}}, fx, "%#v", m)
		assert.Equal(t, s0, next, "%#v", m)
		assert.Panics(t, func() { agenttest.Run(evolve, s0, step{Msg: m}) }, "a driver reports %#v", m)
	}
}

func TestInputSliceIsNotKept(t *testing.T) {
	items := []int{1, 2}
	tr := agenttest.Run(evolve, newState(t, buffer.Config[int]{Size: 2}),
		step{Msg: unbounded},
		step{Msg: agent.Input[int]{Items: items}},
	)
	items[0] = 99
	assert.Equal(t, []agent.Effect{start(1, 1, 2), agent.Demand{N: 2}}, tr[1].Effects)
}

func TestBadConfigErrorsNameTheField(t *testing.T) {
	weigh := func(int) int { return 1 }
	for _, c := range []struct {
		cfg  buffer.Config[int]
		want string
	}{
		{buffer.Config[int]{}, "buffer: size must be at least 1, got 0, unless max weight is set"},
		{buffer.Config[int]{Weight: weigh}, "buffer: size must be at least 1, got 0, unless max weight is set"},
		{buffer.Config[int]{Size: -2}, "buffer: size must be at least 1, got -2"},
		{buffer.Config[int]{Size: -2, MaxWeight: 5, Weight: weigh}, "buffer: size must be at least 1, got -2"},
		{buffer.Config[int]{Size: 1, MaxWeight: -1, Weight: weigh}, "buffer: max weight must not be negative, got -1"},
		{buffer.Config[int]{MaxWeight: -1, Weight: weigh}, "buffer: max weight must not be negative, got -1"},
		{buffer.Config[int]{MaxWeight: 5}, "buffer: max weight 5 needs a weight function"},
		{buffer.Config[int]{Size: 3, MaxWeight: 5}, "buffer: max weight 5 needs a weight function"},
		{buffer.Config[int]{Size: 1, MaxWait: -time.Second}, "buffer: max wait must not be negative, got -1s"},
		{buffer.Config[int]{MaxWeight: 5, Weight: weigh, MaxWait: -1}, "buffer: max wait must not be negative, got -1ns"},
		{buffer.Config[int]{Size: 10, Queue: 5}, "buffer: queue must be at least size (10), got 5"},
		{buffer.Config[int]{Size: 10, Queue: -1}, "buffer: queue must be at least size (10), got -1"},
		{buffer.Config[int]{MaxWeight: 5, Weight: weigh, Queue: -1}, "buffer: queue must be at least size (0), got -1"},
	} {
		_, err := buffer.NewState(c.cfg)
		assert.EqualError(t, err, c.want)
		assert.ErrorIs(t, err, buffer.ErrConfig)
	}
}

func TestQueueDefaultsToTwiceSizeAtLeast(t *testing.T) {
	assert.Equal(t, agent.DefaultQueue, newState(t, buffer.Config[int]{Size: 10}).Status().Queue)
	assert.Equal(t, 200, newState(t, buffer.Config[int]{Size: 100}).Status().Queue)
	assert.Equal(t, 7, newState(t, buffer.Config[int]{Size: 7, Queue: 7}).Status().Queue)
	weighed := newState(t, buffer.Config[int]{MaxWeight: 9, Weight: func(int) int { return 1 }})
	assert.Equal(t, agent.DefaultQueue, weighed.Status().Queue)
}

func TestTickWithoutLingerIsIgnored(t *testing.T) {
	s0 := agenttest.Last(agenttest.Run(evolve, newState(t, buffer.Config[int]{Size: 2}),
		step{Msg: unbounded},
		step{Msg: in(1)},
	))
	tr := agenttest.Run(evolve, s0, step{Msg: agent.Tick{Tag: 0}})
	assert.Empty(t, tr[0].Effects)
	assert.Equal(t, s0, tr[0].State)
}

func TestDemandIsCappedAtUnbounded(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, buffer.Config[int]{Size: 1}),
		step{Msg: agent.Pull{N: math.MaxInt}},
		step{Msg: agent.Pull{N: math.MaxInt}},
		step{Msg: unbounded},
		step{Msg: in(1)},
	)
	for i, tr := range tr[:3] {
		assert.Equal(t, agent.Credit(agent.Unbounded), tr.State.Status().Demand, "step %d", i)
	}
	assert.Equal(t, []agent.Effect{start(1, 1), agent.Demand{N: 1}}, tr[3].Effects)
}
