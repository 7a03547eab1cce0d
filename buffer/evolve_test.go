package buffer_test

import (
	"errors"
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

func newState(t *testing.T, cfg buffer.Config) buffer.State[int] {
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
	tr := agenttest.Run(evolve, newState(t, buffer.Config{Size: 3, Queue: 6}),
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
	assert.Equal(t, 3, st.Flushing)
}

func TestSecondBatchWaitsForTheFirstFlush(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, buffer.Config{Size: 3}),
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
	tr := agenttest.Run(evolve, newState(t, buffer.Config{Size: 10, MaxWait: time.Second}),
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
	tr := agenttest.Run(evolve, newState(t, buffer.Config{Size: 2, MaxWait: time.Second}),
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
	tr := agenttest.Run(evolve, newState(t, buffer.Config{Size: 3, MaxWait: time.Minute}),
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
	tr := agenttest.Run(evolve, newState(t, buffer.Config{Size: 3}),
		step{Msg: unbounded},
		step{Msg: agent.Close{}},
	)
	assert.Equal(t, []agent.Effect{agent.Finish{}}, tr[1].Effects)
}

func TestInputAfterCloseIsFlushedWithoutASecondFinish(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, buffer.Config{Size: 3}),
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
	tr := agenttest.Run(evolve, newState(t, buffer.Config{Size: 1}),
		step{Msg: unbounded},
		step{Msg: in(1, 2, 3, 4)},
		step{Msg: fail(1, first)},
		step{Msg: fail(2, panicked)},
		step{Msg: done(3)},
		step{Msg: agent.Close{}},
		step{Msg: fail(4, second)},
	)
	assert.Equal(t, []agent.Effect{start(2, 2), agent.Demand{N: 1}}, tr[2].Effects, "no Emit, next batch")
	assert.Equal(t, []agent.Effect{start(3, 3), agent.Demand{N: 1}}, tr[3].Effects)
	assert.Equal(t, []agent.Effect{emit(3), start(4, 4), agent.Demand{N: 1}}, tr[4].Effects)
	assert.Empty(t, tr[5].Effects)
	assert.Equal(t, []agent.Effect{agent.Finish{Err: first}}, tr[6].Effects)
	st := tr[6].State.Status()
	assert.Equal(t, 3, st.Failed)
	assert.Equal(t, 1, st.Flushed)
	assert.Equal(t, first, st.Err)
	assert.Equal(t, agent.Unbounded-1, st.Demand, "failed batches use no demand")
}

func TestDemandThrottlesFlushes(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, buffer.Config{Size: 2}),
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
	assert.Equal(t, 0, tr[2].State.Status().Demand)
	assert.Equal(t, 2, tr[2].State.Status().Waiting)
	assert.Equal(t, []agent.Effect{start(2, 3, 4), agent.Demand{N: 2}}, tr[3].Effects)
	assert.Empty(t, tr[4].Effects, "one flush at a time, whatever the demand")
	assert.Equal(t, []agent.Effect{emit(3, 4), start(3, 5, 6), agent.Demand{N: 2}}, tr[5].Effects)
	assert.Equal(t, 5, tr[5].State.Status().Demand)
}

func TestQueryRepliesAndChangesNothing(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, buffer.Config{Size: 3, MaxWait: time.Second, Queue: 9}),
		step{Msg: unbounded},
		step{At: time.Second, Msg: in(1, 2, 3, 4)},
		step{At: 2 * time.Second, Msg: agent.Query{ID: 7}},
	)
	want := buffer.Status{
		Size: 3, MaxWait: time.Second, Queue: 9,
		Pending: 1, Oldest: agenttest.T0.Add(time.Second), Queued: 1, Flushing: 3,
		Demand: agent.Unbounded,
	}
	assert.Equal(t, []agent.Effect{agent.Reply[buffer.Status]{To: 7, Value: want}}, tr[2].Effects)
	assert.Equal(t, tr[1].State, tr[2].State)
}

func TestUnknownMessagesAreIgnored(t *testing.T) {
	s0 := agenttest.Last(agenttest.Run(evolve, newState(t, buffer.Config{Size: 2, MaxWait: time.Second}),
		step{Msg: unbounded},
		step{Msg: in(1, 2, 3)},
	))
	for _, m := range []agent.Msg{
		agent.Set[int]{Value: 3},
		agent.Input[string]{Items: []string{"x"}},
		agent.Done[int]{ID: 1},
		done(2),
		agent.Tick{Tag: 7},
		agent.Pull{N: 0},
		agent.Pull{N: -1},
	} {
		tr := agenttest.Run(evolve, s0, step{Msg: m})
		assert.Empty(t, tr[0].Effects, "%#v", m)
		assert.Equal(t, s0, tr[0].State, "%#v", m)
	}
}

func TestInputSliceIsNotKept(t *testing.T) {
	items := []int{1, 2}
	tr := agenttest.Run(evolve, newState(t, buffer.Config{Size: 2}),
		step{Msg: unbounded},
		step{Msg: agent.Input[int]{Items: items}},
	)
	items[0] = 99
	assert.Equal(t, []agent.Effect{start(1, 1, 2), agent.Demand{N: 2}}, tr[1].Effects)
}

func TestBadConfigErrorsNameTheField(t *testing.T) {
	for _, c := range []struct {
		cfg  buffer.Config
		want string
	}{
		{buffer.Config{}, "buffer: size must be at least 1, got 0"},
		{buffer.Config{Size: -2}, "buffer: size must be at least 1, got -2"},
		{buffer.Config{Size: 1, MaxWait: -time.Second}, "buffer: max wait must not be negative, got -1s"},
		{buffer.Config{Size: 10, Queue: 5}, "buffer: queue must be at least size (10), got 5"},
		{buffer.Config{Size: 10, Queue: -1}, "buffer: queue must be at least size (10), got -1"},
	} {
		_, err := buffer.NewState[int](c.cfg)
		assert.EqualError(t, err, c.want)
		assert.ErrorIs(t, err, buffer.ErrConfig)
	}
}

func TestQueueDefaultsToTwiceSizeAtLeast(t *testing.T) {
	assert.Equal(t, agent.DefaultQueue, newState(t, buffer.Config{Size: 10}).Status().Queue)
	assert.Equal(t, 200, newState(t, buffer.Config{Size: 100}).Status().Queue)
	assert.Equal(t, 7, newState(t, buffer.Config{Size: 7, Queue: 7}).Status().Queue)
}

func TestTickWithoutLingerIsIgnored(t *testing.T) {
	s0 := agenttest.Last(agenttest.Run(evolve, newState(t, buffer.Config{Size: 2}),
		step{Msg: unbounded},
		step{Msg: in(1)},
	))
	tr := agenttest.Run(evolve, s0, step{Msg: agent.Tick{Tag: 0}})
	assert.Empty(t, tr[0].Effects)
	assert.Equal(t, s0, tr[0].State)
}
