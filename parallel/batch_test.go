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
	assert.Equal(t, 2, st.Batches, "two batches, one worker each")
	assert.Equal(t, 5, st.InFlight, "counted in items")
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
		finished(5*time.Microsecond, 0, 1),
		at(5*time.Microsecond, agent.Input[string]{Items: []string{"b", "c", "d", "e", "f", "g", "h"}}),
	)
	assert.Equal(t, []agent.Start[batch]{
		start(1, "b", "c"), start(3, "d", "e"), start(5, "f", "g"), start(7, "h"),
	}, starts(tr[3].Effects), "seven items of 5 µs over four free places: two make ShareSpan")
}

func TestWorkTooSmallToShareGoesToOneWorker(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 4}),
		unbounded,
		input("a"),
		finished(time.Microsecond, 0, 1),
		at(time.Microsecond, agent.Input[string]{Items: []string{"b", "c", "d", "e", "f", "g", "h"}}),
		at(time.Microsecond, agent.Input[string]{Items: make([]string, 30)}),
	)
	assert.Equal(t, []agent.Start[batch]{start(1, "b", "c", "d", "e", "f", "g", "h")}, starts(tr[3].Effects),
		"seven items of 1 µs take less than ShareSpan: one batch")
	fx := starts(tr[4].Effects)
	require.Len(t, fx, 3, "thirty more over the three free places: ten each, as ten make ShareSpan")
	for _, s := range fx {
		assert.Len(t, s.Work, 10)
	}
}

func TestBatchesAreSizedByTheWorksOwnTime(t *testing.T) {
	took := func(took time.Duration) agenttest.Step {
		return at(time.Millisecond, agent.Done[[]result]{ID: 0, Result: []result{{Seq: 0, Value: 1}}, Took: took})
	}
	items := agent.Input[string]{Items: []string{"b", "c", "d", "e", "f", "g", "h"}}
	measured := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 1}),
		unbounded, input("a"), took(2*time.Microsecond), at(time.Millisecond, items))
	assert.Equal(t, []agent.Start[batch]{start(1, "b", "c", "d", "e", "f", "g", "h")}, starts(measured[3].Effects),
		"the work took 2 µs, though its Done came 1 ms after its Start")
	quick := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 4}),
		unbounded, input("a"), finished(0, 0, 1), at(0, items))
	assert.Equal(t, []agent.Start[batch]{start(1, "b", "c", "d", "e", "f", "g", "h")}, starts(quick[3].Effects),
		"work too quick to measure (no time at all) is not shared out either")
	unmeasured := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 1}),
		unbounded, input("a"), took(0), at(time.Millisecond, items))
	assert.Equal(t, []agent.Start[batch]{start(1, "b")}, starts(unmeasured[3].Effects),
		"with no Took, the time from the Start to the Done counts: 1 ms")
}

func TestMaxBatchBoundsABatch(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 1, MaxBatch: 2}),
		unbounded,
		input("a", "b", "c", "d"),
		finished(time.Microsecond, 0, 1),
	)
	assert.Equal(t, []agent.Start[batch]{start(1, "b", "c")}, starts(tr[2].Effects))

	one := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 1, MaxBatch: 1}),
		unbounded,
		input("a", "b", "c"),
		finished(0, 0, 1),
	)
	assert.Equal(t, []agent.Start[batch]{start(1, "b")}, starts(one[2].Effects), "MaxBatch 1: one at a time, however quick")
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
		finished(5*time.Microsecond, 0, 1),
		input("b", "c", "d", "e"),
		finished(6*time.Microsecond, 3, 4, 5),
		finished(7*time.Microsecond, 1, 2, 3),
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
		finished(5*time.Microsecond, 0, 1),
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

func TestADonesResultsTakeTheirSeqsFromItsBatch(t *testing.T) {
	s := agenttest.Last(agenttest.Run(evolve, newState(t, parallel.Config{Limit: 1}),
		unbounded,
		input("a"),
		finished(time.Microsecond, 0, 1),
		input("b", "c"),
	))
	tr := agenttest.Run(evolve, s,
		at(time.Millisecond, agent.Done[[]result]{ID: 1, Result: []result{{Seq: 7, Value: 2}, {Seq: 7, Value: 3}}}),
	)
	assert.Equal(t, []result{{Seq: 1, Value: 2}, {Seq: 2, Value: 3}}, emitted(tr[0].Effects),
		"one result per item, in order, numbered by the batch")
}

func TestFlightDescribesEachBatchInFlight(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 2}),
		unbounded,
		input("a"),
		at(2*time.Microsecond, agent.Input[string]{Items: []string{"b", "c"}}),
		at(5*time.Microsecond, agent.Input[string]{Items: []string{"d"}}),
		finished(10*time.Microsecond, 0, 1),
	)
	assert.Equal(t, []agent.Start[batch]{start(1, "b")}, starts(tr[2].Effects), "c waits for a place")
	assert.Equal(t, []agent.Start[batch]{start(2, "c", "d")}, starts(tr[4].Effects))

	a, ok := tr[1].State.Flight(0)
	assert.True(t, ok)
	assert.Equal(t, parallel.Flight{Start: agenttest.T0, Items: 1, Among: 1}, a)

	s := agenttest.Last(tr)
	b, ok := s.Flight(1)
	assert.True(t, ok)
	assert.Equal(t, parallel.Flight{Start: agenttest.T0.Add(2 * time.Microsecond), Items: 1, Among: 2}, b,
		"b started on arrival, beside a")
	cd, ok := s.Flight(2)
	assert.True(t, ok)
	assert.Equal(t, parallel.Flight{Start: agenttest.T0.Add(10 * time.Microsecond), Wait: 8 * time.Microsecond, Items: 2, Among: 2}, cd,
		"the wait is that of the batch's first item, c, accepted at 2 µs")

	for _, id := range []uint64{0, 3, 99} {
		f, ok := s.Flight(id)
		assert.False(t, ok, "no batch in flight under %d", id)
		assert.Zero(t, f)
	}
}
