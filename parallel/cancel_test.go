package parallel_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/parallel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cancelOf returns the cause of the one agent.Cancel in fx, failing the
// test if there is not exactly one.
func cancelOf(t *testing.T, fx []agent.Effect) error {
	t.Helper()
	cs := agenttest.Of[agent.Cancel](fx)
	require.Len(t, cs, 1, "one Cancel in %v", fx)
	return cs[0].Cause
}

// withoutDeadLetters returns fx without its agent.DeadLetter effects.
func withoutDeadLetters(fx []agent.Effect) []agent.Effect {
	return slices.DeleteFunc(slices.Clone(fx), func(e agent.Effect) bool { _, ok := e.(agent.DeadLetter); return ok })
}

func TestTheFirstFailureCancelsTheRest(t *testing.T) {
	boom := errors.New("boom")
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 2, CancelOnError: true}),
		step(agent.Pull{N: 4}),
		input("a", "b", "c", "d", "e", "f"),
		at(time.Millisecond, agent.Done[[]result]{ID: 1, Result: []result{{Seq: 1, Err: boom}}}),
		finished(2*time.Millisecond, 0, 10),
		at(3*time.Millisecond, agent.Pull{N: 1}),
		at(4*time.Millisecond, agent.Close{}),
		at(5*time.Millisecond, agent.Pull{N: 5}),
	)
	var dead []agent.DeadLetter
	for i := range tr {
		dead = append(dead, agenttest.Of[agent.DeadLetter](tr[i].Effects)...)
		tr[i].Effects = withoutDeadLetters(tr[i].Effects)
	}
	assert.Equal(t, []agent.Effect{start(0, "a"), start(1, "b"), agent.Demand{N: 2}}, tr[1].Effects)

	cause := cancelOf(t, tr[2].Effects)
	require.Len(t, dead, 5, "every item that failed is a dead letter: b, and c to f failed unstarted")
	assert.Equal(t, agent.DeadLetter{Seq: 1, Item: "b", Err: boom, Attempts: 1}, dead[0])
	assert.Equal(t, agent.DeadLetter{Seq: 2, Item: "c", Err: cause, Attempts: 0}, dead[1])
	assert.Equal(t, agent.DeadLetter{Seq: 5, Item: "f", Err: cause, Attempts: 0}, dead[4])
	assert.EqualError(t, cause, "parallel: cancelled after item 1 failed: boom")
	assert.ErrorIs(t, cause, boom)
	assert.Equal(t, []agent.Effect{agent.Cancel{Cause: cause}, agent.Demand{N: 2}}, tr[2].Effects,
		"c and d fail at once, within the demand of 4 (a and b hold two), without a Start; "+
			"b waits for a, and they for it")
	assert.Equal(t, 3, tr[2].State.Status().Held)
	assert.Equal(t, 2, tr[2].State.Status().Queued)

	assert.Equal(t, []agent.Effect{agent.Emit[result]{Values: []result{
		{Seq: 0, Value: 10}, {Seq: 1, Err: boom}, {Seq: 2, Err: cause}, {Seq: 3, Err: cause},
	}}}, tr[3].Effects, "in input order; no second Cancel; no demand left for e")
	assert.Equal(t, []agent.Effect{
		agent.Emit[result]{Values: []result{{Seq: 4, Err: cause}}},
		agent.Demand{N: 1},
	}, tr[4].Effects, "one more value of demand: one more item fails")
	assert.Empty(t, tr[5].Effects, "f is still queued")
	assert.Equal(t, []agent.Effect{
		agent.Emit[result]{Values: []result{{Seq: 5, Err: cause}}},
		agent.Demand{N: 1},
		agent.Finish{Err: boom},
	}, tr[6].Effects, "Finish carries the first failure")

	st := agenttest.Last(tr).Status()
	assert.Equal(t, agent.Load{Done: 6, Failed: 5, Demand: 4}, st.Load)
	assert.Equal(t, 6, st.Emitted)
	for i, step := range tr[2:] {
		assert.Empty(t, starts(step.Effects), "step %d", i+2)
	}
}

func TestWorkInFlightWhenCancelledEndsOnce(t *testing.T) {
	first, second := errors.New("first"), errors.New("second")
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 3, Unordered: true, CancelOnError: true}),
		unbounded,
		input("a", "b", "c", "d"),
		at(time.Millisecond, agent.Done[[]result]{ID: 2, Result: []result{{Seq: 2, Err: first}}}),
		at(time.Millisecond, agent.Done[[]result]{ID: 0, Result: []result{{Seq: 0, Err: second}}}),
		at(time.Millisecond, agent.Done[[]result]{ID: 1, Result: []result{{Seq: 1, Value: 11}}}),
		step(agent.Close{}),
	)
	for i := range tr {
		tr[i].Effects = withoutDeadLetters(tr[i].Effects)
	}
	cause := cancelOf(t, tr[2].Effects)
	assert.EqualError(t, cause, "parallel: cancelled after item 2 failed: first")
	assert.Equal(t, []agent.Effect{
		agent.Cancel{Cause: cause},
		agent.Emit[result]{Values: []result{{Seq: 2, Err: first}}},
		agent.Emit[result]{Values: []result{{Seq: 3, Err: cause}}},
		agent.Demand{N: 1},
	}, tr[2].Effects, "unordered: each goes out as it ends")
	assert.Equal(t, []agent.Effect{agent.Emit[result]{Values: []result{{Seq: 0, Err: second}}}}, tr[3].Effects,
		"a later failure cancels nothing more")
	assert.Equal(t, []agent.Effect{agent.Emit[result]{Values: []result{{Seq: 1, Value: 11}}}}, tr[4].Effects,
		"work that succeeds in spite of the cancellation keeps its value")
	assert.Equal(t, []agent.Effect{agent.Finish{Err: first}}, tr[5].Effects)
	assert.Equal(t, agent.Load{Done: 4, Failed: 3, Demand: agent.Unbounded - 4}, agenttest.Last(tr).Status().Load)
}

func TestACancellationNamesTheFirstFailedItemOfItsBatch(t *testing.T) {
	boom, bang := errors.New("boom"), errors.New("bang")
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 1, MaxBatch: 3, CancelOnError: true}),
		unbounded,
		input("a"),
		finished(time.Microsecond, 0, 10),
		input("b", "c", "d", "e"),
		at(time.Millisecond, agent.Done[[]result]{ID: 1, Result: []result{{Value: 11}, {Err: boom}, {Err: bang}}}),
	)
	assert.Equal(t, []agent.Start[batch]{start(1, "b", "c", "d")}, starts(tr[3].Effects))
	cause := cancelOf(t, tr[4].Effects)
	assert.EqualError(t, cause, "parallel: cancelled after item 2 failed: boom")
	assert.Equal(t, []result{
		{Seq: 1, Value: 11}, {Seq: 2, Err: boom}, {Seq: 3, Err: bang}, {Seq: 4, Err: cause},
	}, emitted(tr[4].Effects))
}

func TestWithoutCancelOnErrorAFailureCancelsNothing(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, parallel.Config{Limit: 1}),
		unbounded,
		input("a", "b"),
		failed(0, errors.New("boom")),
	)
	assert.Empty(t, agenttest.Of[agent.Cancel](tr[2].Effects))
	assert.Equal(t, []agent.Start[batch]{start(1, "b")}, starts(tr[2].Effects))
}

func TestCancelOnErrorCancelsTheWorkInFlight(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		boom := errors.New("boom")
		var began atomic.Int64
		var seen atomic.Value // what item 1 saw when its context ended
		work := func(ctx context.Context, v int) (int, error) {
			began.Add(1)
			if v == 0 {
				time.Sleep(10 * time.Millisecond)
				return 0, boom
			}
			<-ctx.Done()
			seen.Store(context.Cause(ctx))
			return v, ctx.Err()
		}
		var got []parallel.Result[int]
		a, err := parallel.New(rt, parallel.Config{Limit: 2, CancelOnError: true}, work, collect(&got))
		require.NoError(t, err)
		postAll(t, a, 0, 1, 2, 3, 4, 5)
		a.Close()
		start := time.Now()
		assert.ErrorIs(t, a.Wait(context.Background()), boom, "Wait returns the first failure")
		assert.Equal(t, 10*time.Millisecond, time.Since(start), "nothing waited for a timeout")
		assert.Equal(t, int64(2), began.Load(), "only the items in flight began")

		require.Len(t, got, 6, "every item posted ends once")
		assert.Equal(t, []uint64{0, 1, 2, 3, 4, 5}, seqs(got))
		assert.Equal(t, boom, got[0].Err)
		cause, _ := seen.Load().(error)
		assert.EqualError(t, cause, "parallel: cancelled after item 0 failed: boom")
		assert.ErrorIs(t, cause, boom)
		assert.ErrorIs(t, got[1].Err, context.Canceled, "what the work returned")
		for _, r := range got[2:] {
			assert.Equal(t, cause, r.Err, "item %d failed unstarted, with the cause", r.Seq)
		}
		st, err := a.Status(context.Background())
		require.NoError(t, err)
		assert.Equal(t, agent.Load{Done: 6, Failed: 6, Demand: agent.Unbounded - 6}, st.Load)
	})
}
