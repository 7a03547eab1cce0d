package parallel_test

import (
	"errors"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/parallel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Shorthands for the step tables below: the agent takes strings and its
// work returns ints.
type (
	state  = parallel.State[string, int]
	result = parallel.Result[int]
	batch  = []string
)

var (
	evolve    = parallel.Evolve[string, int]
	unbounded = step(agent.Pull{N: agent.Unbounded})
)

func step(m agent.Msg) agenttest.Step { return agenttest.Step{Msg: m} }

func input(items ...string) agenttest.Step {
	return step(agent.Input[string]{Items: items})
}

// done finishes the batch of one item started under id with v.
func done(id uint64, v int) agenttest.Step {
	return step(agent.Done[[]result]{ID: id, Result: []result{{Seq: id, Value: v}}})
}

// failed fails the batch of one item started under id with err.
func failed(id uint64, err error) agenttest.Step {
	return step(agent.Done[[]result]{ID: id, Result: []result{{Seq: id, Err: err}}})
}

// start is the Start of a batch of items from Seq id.
func start(id uint64, items ...string) agent.Start[batch] {
	return agent.Start[batch]{ID: id, Work: items}
}

func setLimit(n int) agenttest.Step { return step(agent.Set[parallel.Limit]{Value: parallel.Limit(n)}) }

func newState(t *testing.T, cfg parallel.Config) state {
	t.Helper()
	s, err := parallel.NewState[string, int](cfg)
	require.NoError(t, err)
	return s
}

func starts(fx []agent.Effect) []agent.Start[batch] { return agenttest.Of[agent.Start[batch]](fx) }

func emitted(fx []agent.Effect) []result { return agenttest.Emitted[result](fx) }

func TestAtMostLimitStartAndTheirSlotsComeBack(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 2, Queue: 4}),
		unbounded,
		input("a", "b", "c", "d"),
	)
	assert.Empty(t, tr[0].Effects)
	assert.Equal(t, []agent.Effect{
		start(0, "a"),
		start(1, "b"),
		agent.Demand{N: 2},
	}, tr[1].Effects)
	st := agenttest.Last(tr).Status()
	assert.Equal(t, 2, st.InFlight)
	assert.Equal(t, 2, st.Batches)
	assert.Equal(t, 2, st.Queued)
	assert.Equal(t, 4, st.Accepted)
}

func TestFinishedWorkMakesRoomForQueuedWork(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 2, Queue: 4}),
		unbounded,
		input("a", "b", "c"),
		done(0, 10),
	)
	assert.Equal(t, []agent.Effect{
		agent.Emit[result]{Values: []result{{Seq: 0, Value: 10}}},
		start(2, "c"),
		agent.Demand{N: 1},
	}, tr[2].Effects)
	st := agenttest.Last(tr).Status()
	assert.Equal(t, 2, st.InFlight)
	assert.Equal(t, 2, st.Batches)
	assert.Zero(t, st.Queued)
	assert.Equal(t, 1, st.Done)
}

func TestInOrderEarlyResultsAreHeldThenReleased(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 3}),
		unbounded,
		input("a", "b", "c"),
		done(2, 12),
		done(1, 11),
		done(0, 10),
	)
	assert.Empty(t, tr[2].Effects)
	assert.Empty(t, tr[3].Effects)
	assert.Equal(t, 2, tr[3].State.Status().Held)
	assert.Equal(t, []result{{Seq: 0, Value: 10}, {Seq: 1, Value: 11}, {Seq: 2, Value: 12}}, emitted(tr[4].Effects))
	assert.Zero(t, agenttest.Last(tr).Status().Held)
}

func TestUnorderedResultsGoOutAsTheyFinish(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 3, Unordered: true}),
		unbounded,
		input("a", "b", "c"),
		done(2, 12),
		done(0, 10),
		done(1, 11),
	)
	assert.Equal(t, []result{{Seq: 2, Value: 12}}, emitted(tr[2].Effects))
	assert.Equal(t, []result{{Seq: 0, Value: 10}}, emitted(tr[3].Effects))
	assert.Equal(t, []result{{Seq: 1, Value: 11}}, emitted(tr[4].Effects))
}

func TestInOrderAtMostLimitResultsWaitForAnEarlierOne(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 2, MaxBatch: 1}),
		unbounded,
		input("a", "b", "c", "d", "e"),
		done(1, 11), // held; c starts
		done(2, 12), // held; two wait for a, so d does not start
		done(0, 10),
	)
	assert.Equal(t, []agent.Start[batch]{start(2, "c")}, starts(tr[2].Effects))
	assert.Empty(t, tr[3].Effects)
	assert.Equal(t, 2, tr[3].State.Status().Held)
	assert.Equal(t, []agent.Effect{
		agent.Emit[result]{Values: []result{{Seq: 0, Value: 10}, {Seq: 1, Value: 11}, {Seq: 2, Value: 12}}},
		start(3, "d"),
		start(4, "e"),
		agent.Demand{N: 2},
	}, tr[4].Effects)
}

func TestFailedWorkIsPassedOnCountedAndReportedAtFinish(t *testing.T) {
	first, second := errors.New("first"), errors.New("second")
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 3}),
		unbounded,
		input("a", "b", "c"),
		failed(1, first),
		failed(0, second),
		step(agent.Close{}),
		done(2, 12),
	)
	assert.Equal(t, []result{{Seq: 0, Err: second}, {Seq: 1, Err: first}}, emitted(tr[3].Effects))
	assert.Empty(t, tr[4].Effects, "the agent finishes only once nothing is left")
	assert.Equal(t, []agent.Effect{
		agent.Emit[result]{Values: []result{{Seq: 2, Value: 12}}},
		agent.Finish{Err: first},
	}, tr[5].Effects, "Finish carries the first failure seen, after everything is emitted")
	st := agenttest.Last(tr).Status()
	assert.Equal(t, 3, st.Done)
	assert.Equal(t, 2, st.Failed)
	assert.Equal(t, 3, st.Emitted)
}

func TestCloseFinishesExactlyOnce(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 1}),
		unbounded,
		step(agent.Close{}),
		step(agent.Close{}),
		input("late"),
		done(0, 1),
	)
	assert.Equal(t, []agent.Effect{agent.Finish{}}, tr[1].Effects)
	assert.Empty(t, tr[2].Effects)
	assert.Equal(t, []agent.Start[batch]{start(0, "late")}, starts(tr[3].Effects), "input after Close is accepted")
	assert.Equal(t, []agent.Effect{agent.Emit[result]{Values: []result{{Seq: 0, Value: 1}}}}, tr[4].Effects)
}

func TestFinishWaitsForQueuedItems(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 1}),
		unbounded,
		input("a", "b"),
		step(agent.Close{}),
		done(0, 1),
		done(1, 2),
	)
	assert.Empty(t, tr[2].Effects)
	assert.Empty(t, agenttest.Of[agent.Finish](tr[3].Effects))
	assert.Equal(t, []agent.Finish{{}}, agenttest.Of[agent.Finish](tr[4].Effects))
	assert.True(t, agenttest.Last(tr).Status().Closed)
}

func TestRaisingTheLimitStartsQueuedWorkAtOnce(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 1}),
		unbounded,
		input("a", "b", "c", "d"),
		setLimit(3),
	)
	assert.Equal(t, []agent.Effect{
		start(1, "b"),
		start(2, "c"),
		agent.Demand{N: 2},
	}, tr[2].Effects)
	assert.Equal(t, 3, agenttest.Last(tr).Status().Limit)
}

func TestLoweringTheLimitLetsRunningWorkFinish(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 3, Unordered: true}),
		unbounded,
		input("a", "b", "c", "d"),
		setLimit(1),
		done(0, 10),
		done(1, 11),
		done(2, 12),
	)
	assert.Empty(t, tr[2].Effects)
	assert.Equal(t, 3, tr[2].State.Status().Batches)
	assert.Empty(t, starts(tr[3].Effects), "two still in flight, over the limit of 1")
	assert.Empty(t, starts(tr[4].Effects), "one in flight, at the limit of 1")
	assert.Equal(t, []agent.Start[batch]{start(3, "d")}, starts(tr[5].Effects))
}

func TestALimitBelowOneIsIgnored(t *testing.T) {
	s := agenttest.Last(agenttest.Run(evolve, newState(t, parallel.Config{Limit: 2}), unbounded, input("a")))
	for _, n := range []int{0, -1} {
		tr := agenttest.Run(evolve, s, setLimit(n))
		assert.Empty(t, tr[0].Effects)
		assert.Equal(t, s, tr[0].State)
	}
}

func TestWithoutDemandNothingStartsAndNothingIsEmitted(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 3}),
		input("a", "b", "c"),
		step(agent.Pull{N: 1}),
		done(0, 10),
		step(agent.Pull{N: 2}),
	)
	assert.Empty(t, tr[0].Effects, "no demand yet: nothing starts")
	assert.Equal(t, []agent.Effect{start(0, "a"), agent.Demand{N: 1}}, tr[1].Effects,
		"one value of demand reserves one start")
	assert.Equal(t, []agent.Effect{agent.Emit[result]{Values: []result{{Seq: 0, Value: 10}}}}, tr[2].Effects,
		"the demand is used up: nothing new starts")
	assert.Equal(t, []agent.Start[batch]{start(1, "b", "c")}, starts(tr[3].Effects),
		"two values of demand: both start, in one batch, as the work took no time")
	st := agenttest.Last(tr).Status()
	assert.Equal(t, agent.Credit(2), st.Demand)
	assert.Equal(t, 2, st.InFlight)
}

func TestFinishedResultsWaitForDemand(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 2, Unordered: true}),
		step(agent.Pull{N: 2}),
		input("a", "b"),
		done(1, 11),
		step(agent.Close{}),
		done(0, 10),
	)
	assert.Equal(t, []result{{Seq: 1, Value: 11}}, emitted(tr[2].Effects))
	assert.Equal(t, []agent.Effect{
		agent.Emit[result]{Values: []result{{Seq: 0, Value: 10}}},
		agent.Finish{},
	}, tr[4].Effects)

	held := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 1}),
		step(agent.Pull{N: 1}),
		input("a"),
		step(agent.Pull{N: -5}), // ignored
		step(agent.Close{}),
	)
	assert.Empty(t, held[2].Effects)
	assert.Empty(t, held[3].Effects, "still in flight")
}

func TestQueryRepliesAndChangesNothing(t *testing.T) {
	s := agenttest.Last(agenttest.Run(evolve, newState(t, parallel.Config{Limit: 2, Queue: 5}),
		unbounded, input("a", "b", "c"), failed(1, errors.New("x"))))
	tr := agenttest.Run(evolve, s, step(agent.Query{ID: 7}))
	assert.Equal(t, s, tr[0].State)
	assert.Equal(t, []agent.Effect{agent.Reply[parallel.Status]{To: 7, Value: parallel.Status{
		Load:  agent.Load{InFlight: 2, Done: 1, Failed: 1, Demand: agent.Unbounded},
		Limit: 2, Queue: 5, MaxBatch: parallel.DefaultMaxBatch, Batches: 2, Batch: parallel.DefaultMaxBatch,
		Held: 1, Accepted: 3,
	}}}, tr[0].Effects, "work that took no time at all makes batches as large as MaxBatch")
}

func TestUnknownMessagesAreUnhandled(t *testing.T) {
	s := agenttest.Last(agenttest.Run(evolve, newState(t, parallel.Config{Limit: 1}),
		unbounded, input("a", "b"), step(agent.Close{})))
	for _, m := range []agent.Msg{
		agent.Tick{Tag: 7}, // a timer it never arms
		agent.Input[int]{Items: []int{1}},
		agent.Done[string]{ID: 0},
		agent.Done[int]{ID: 0},
		agent.Done[[]parallel.Result[string]]{ID: 0},
		agent.Set[int]{Value: 5},
		agent.Set[otherLimit]{Value: 5},
	} {
		next, fx := parallel.Evolve(s, agent.Stamp(m, agenttest.T0))
		assert.Equal(t, []agent.Effect{agent.Unhandled{}}, fx, "%T", m)
		assert.Equal(t, s, next, "%T", m)
	}
	assert.Panics(t, func() {
		agenttest.Run(evolve, s, step(agent.Done[int]{ID: 0}))
	}, "a driver reports a message the agent does not take")
}

// otherLimit is a limit of another kind than parallel.Limit.
type otherLimit int

func TestStrayDonesAndEmptyPullsAreIgnored(t *testing.T) {
	s := agenttest.Last(agenttest.Run(evolve, newState(t, parallel.Config{Limit: 1}),
		unbounded, input("a", "b"), step(agent.Close{})))
	for _, m := range []agent.Msg{
		agent.Done[[]result]{ID: 1}, // queued, not started
		agent.Done[[]result]{ID: 9}, // never accepted
		agent.Pull{N: 0},
		agent.Pull{N: -3},
	} {
		tr := agenttest.Run(evolve, s, step(m))
		assert.Empty(t, tr[0].Effects, "%#v", m)
		assert.Equal(t, s, tr[0].State, "%#v", m)
	}
}

func TestADuplicateDoneIsIgnored(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 2}),
		unbounded, input("a", "b"), done(0, 10), done(0, 99))
	assert.Empty(t, tr[3].Effects)
	assert.Equal(t, 1, agenttest.Last(tr).Status().Done)
}

func TestEvolveLeavesTheStateItWasGivenUntouched(t *testing.T) {
	s := agenttest.Last(agenttest.Run(evolve, newState(t, parallel.Config{Limit: 3}),
		unbounded, input("a", "b", "c", "d"), done(2, 12)))
	// Two different futures of the same state must not see each other.
	left := agenttest.Run(evolve, s, done(1, 11), input("e"))
	right := agenttest.Run(evolve, s, done(0, 10), input("f"))
	again := agenttest.Run(evolve, s, done(1, 11), input("e"))
	for i := range left {
		assert.Equal(t, left[i].Effects, again[i].Effects)
		assert.Equal(t, left[i].State.Status(), again[i].State.Status())
	}
	assert.Equal(t, []result{{Seq: 0, Value: 10}}, emitted(right[0].Effects))
	assert.Equal(t, 2, agenttest.Last(left).Status().Held)
}

func TestNewStateRejectsABadConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  parallel.Config
		want string
	}{
		{parallel.Config{}, "parallel: limit must be at least 1, got 0"},
		{parallel.Config{Limit: -3}, "parallel: limit must be at least 1, got -3"},
		{parallel.Config{Limit: 1, Queue: -1}, "parallel: queue must not be negative, got -1"},
		{parallel.Config{Limit: 1, MaxBatch: -2}, "parallel: max batch must not be negative, got -2"},
		{parallel.Config{Limit: 1, Timeout: -time.Second}, "parallel: timeout must not be negative, got -1s"},
	} {
		_, err := parallel.NewState[string, int](c.cfg)
		assert.EqualError(t, err, c.want)
		assert.ErrorIs(t, err, parallel.ErrConfig)
	}
}

func TestNewStateFillsInDefaults(t *testing.T) {
	st := newState(t, parallel.Config{Limit: 4}).Status()
	assert.Equal(t, parallel.Status{Limit: 4, Queue: agent.DefaultQueue, MaxBatch: parallel.DefaultMaxBatch, Batch: 1}, st,
		"one item at a time until a batch has finished; no demand until the first Pull")
	tuned := newState(t, parallel.Config{Limit: 1, Queue: 3, MaxBatch: 5, Unordered: true, Timeout: time.Second, CancelOnError: true})
	assert.Equal(t, parallel.Status{Limit: 1, Queue: 3, MaxBatch: 5, Unordered: true, Batch: 1}, tuned.Status())
}
