package parallel_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/parallel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// at is a step stamped d after the start of the run.
func at(d time.Duration, m agent.Msg) agenttest.Step { return agenttest.Step{At: d, Msg: m} }

// finished finishes the batch started under id with one result per value.
func finished(d time.Duration, id uint64, values ...int) agenttest.Step {
	rs := make([]result, len(values))
	for i, v := range values {
		rs[i] = result{Seq: id + uint64(i), Value: v}
	}
	return at(d, agent.Done[[]result]{ID: id, Result: rs})
}

func TestQuickWorkIsHandedOutInBatchesSizedByItsTime(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 2}),
		unbounded,
		input("a", "b", "c", "d", "e", "f"),
		finished(10*time.Microsecond, 0, 1),
	)
	assert.Equal(t, []agent.Effect{start(0, "a"), start(1, "b"), agent.Demand{N: 2}}, tr[1].Effects,
		"one item at a time until a batch has finished")
	assert.Equal(t, []agent.Effect{
		agent.Emit[result]{Values: []result{{Seq: 0, Value: 1}}},
		start(2, "c", "d", "e", "f"),
		agent.Demand{N: 4},
	}, tr[2].Effects, "an item took 10 µs: up to 10 go in one batch, here all that wait")
	st := agenttest.Last(tr).Status()
	assert.Equal(t, 2, st.InFlight, "two batches, one worker each")
	assert.Equal(t, 5, st.Assigned)
	assert.Equal(t, 10, st.Batch)
}

func TestSlowWorkGoesOneItemAtATime(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 1}),
		unbounded,
		input("a", "b", "c"),
		finished(time.Millisecond, 0, 1),
	)
	assert.Equal(t, []agent.Start[batch]{start(1, "b")}, starts(tr[2].Effects))
	assert.Equal(t, 1, agenttest.Last(tr).Status().Batch)
}

func TestABatchIsAnEvenShareOfWhatMayStart(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 4}),
		unbounded,
		input("a"),
		finished(time.Microsecond, 0, 1),
		at(time.Microsecond, agent.Input[string]{Items: []string{"b", "c", "d", "e", "f", "g", "h"}}),
	)
	assert.Equal(t, []agent.Start[batch]{
		start(1, "b", "c"), start(3, "d", "e"), start(5, "f", "g"), start(7, "h"),
	}, starts(tr[3].Effects), "seven items over four free places")
}

func TestRunBoundsABatch(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 1, Run: 2}),
		unbounded,
		input("a", "b", "c", "d"),
		finished(time.Microsecond, 0, 1),
	)
	assert.Equal(t, []agent.Start[batch]{start(1, "b", "c")}, starts(tr[2].Effects))

	one := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 1, Run: 1}),
		unbounded,
		input("a", "b", "c"),
		finished(0, 0, 1),
	)
	assert.Equal(t, []agent.Start[batch]{start(1, "b")}, starts(one[2].Effects), "Run 1: one at a time, however quick")
}

func TestDemandBoundsABatch(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 1}),
		at(0, agent.Pull{N: 3}),
		input("a", "b", "c", "d", "e"),
		finished(time.Microsecond, 0, 1),
	)
	assert.Equal(t, []agent.Start[batch]{start(1, "b", "c")}, starts(tr[2].Effects),
		"three values of demand, one used: two more may start")
}

func TestABatchThatFinishesFirstIsHeldThenGoesOutWithTheEarlierOne(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 2}),
		unbounded,
		input("a"),
		finished(time.Microsecond, 0, 1),
		input("b", "c", "d", "e"),
		finished(2*time.Microsecond, 3, 4, 5),
		finished(3*time.Microsecond, 1, 2, 3),
	)
	assert.Equal(t, []agent.Start[batch]{start(1, "b", "c"), start(3, "d", "e")}, starts(tr[3].Effects))
	assert.Empty(t, tr[4].Effects, "d and e wait for b and c")
	assert.Equal(t, 2, tr[4].State.Status().Held)
	assert.Equal(t, []agent.Effect{
		agent.Emit[result]{Values: []result{{Seq: 1, Value: 2}, {Seq: 2, Value: 3}, {Seq: 3, Value: 4}, {Seq: 4, Value: 5}}},
	}, tr[5].Effects, "one Emit, in input order")
}

func TestItemsABatchReturnsNoResultForFail(t *testing.T) {
	broke := errors.New("broke")
	s := agenttest.Last(agenttest.Run(evolve, newState(t, parallel.Config{Limit: 2, Unordered: true}),
		unbounded,
		input("a"),
		finished(time.Microsecond, 0, 1),
		input("b", "c", "d", "e"),
	))
	tr := agenttest.Run(evolve, s,
		at(time.Millisecond, agent.Done[[]result]{ID: 1, Result: []result{{Seq: 1, Value: 2}}}),
		at(time.Millisecond, agent.Done[[]result]{ID: 3, Err: broke}),
	)
	got := emitted(tr[0].Effects)
	require.Len(t, got, 2)
	assert.Equal(t, result{Seq: 1, Value: 2}, got[0])
	assert.EqualError(t, got[1].Err, "parallel: the batch from 1 returned no result for item 2")
	assert.Equal(t, []result{{Seq: 3, Err: broke}, {Seq: 4, Err: broke}}, emitted(tr[1].Effects))
	st := agenttest.Last(tr).Status()
	assert.Equal(t, 3, st.Failed)
	assert.Equal(t, 5, st.Done)
}

func TestRunWorksOnEachItemInTurn(t *testing.T) {
	var order []int
	work := parallel.Work[int, int](func(_ context.Context, v int) (int, error) {
		order = append(order, v)
		switch v {
		case 2:
			panic("two")
		case 3:
			return -1, errors.New("three")
		}
		return 10 * v, nil
	})
	rs, err := work.Run(context.Background(), parallel.Batch[int]{Seq: 7, Items: []int{1, 2, 3, 4}})
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2, 3, 4}, order, "a panic fails its item alone")
	require.Len(t, rs, 4)
	assert.Equal(t, result{Seq: 7, Value: 10}, rs[0])
	var pe *agent.PanicError
	require.ErrorAs(t, rs[1].Err, &pe)
	assert.Equal(t, "two", pe.Value)
	assert.Equal(t, uint64(8), rs[1].Seq)
	assert.Equal(t, result{Seq: 9, Value: -1, Err: rs[2].Err}, rs[2])
	assert.EqualError(t, rs[2].Err, "three")
	assert.Equal(t, result{Seq: 10, Value: 40}, rs[3])
}

func TestRunStopsBeginningItemsOnceCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var began []int
	work := parallel.Work[int, int](func(_ context.Context, v int) (int, error) {
		began = append(began, v)
		cancel()
		return v, nil
	})
	rs, _ := work.Run(ctx, parallel.Batch[int]{Items: []int{1, 2, 3}})
	assert.Equal(t, []int{1}, began)
	assert.Equal(t, result{Seq: 0, Value: 1}, rs[0])
	assert.ErrorIs(t, rs[1].Err, context.Canceled)
	assert.ErrorIs(t, rs[2].Err, context.Canceled)
}
