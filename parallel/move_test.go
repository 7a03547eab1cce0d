package parallel_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/internal/pace"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// moveTo is the error of work that asks its item to go on where tag is
// held, with next as its input, as remote.Move's is.
type moveTo struct {
	tag  string
	next any
}

func (m *moveTo) Error() string                  { return "move to " + m.tag }
func (m *moveTo) MoveTo() (tag string, next any) { return m.tag, m.next }

// moved is the Done of the batch id whose one item asks to go on with
// next where tag is held.
func moved(id uint64, tag string, next any) agenttest.Step {
	return step(agent.Done[[]result]{ID: id, Result: []result{{Seq: id, Err: fmt.Errorf("wrapped: %w", &moveTo{tag, next})}}})
}

func TestAMovedItemGoesOnAtOnceWithItsStateSpendingNoAttempt(t *testing.T) {
	s := newState(t, parallel.Config{Limit: 2, MaxBatch: 1}) // one attempt: a move is no failure
	tr := agenttest.Run(evolve, s, unbounded, input("a", "b"), moved(0, "gpu", "a+"))
	assert.Empty(t, emitted(tr[2].Effects), "the item goes on: nothing is passed on")
	assert.Equal(t, []agent.Effect{pace.Out(pace.Reserve{N: 1})}, tr[2].Effects, "it goes on as a retry does, with a pass of the chain's pace")
	tr = agenttest.Run(evolve, agenttest.Last(tr), step(pace.In(pace.Pass{N: 1})), done(0, 7), done(1, 8))
	assert.Equal(t, []agent.Start[batch]{start(0, "a+")}, starts(tr[0].Effects), "under its Seq, with the state its work reached")
	assert.Equal(t, []result{{Seq: 0, Value: 7}, {Seq: 1, Value: 8}}, append(emitted(tr[1].Effects), emitted(tr[2].Effects)...))
	st := agenttest.Last(tr).Status()
	assert.Equal(t, 1, st.Moved)
	assert.Zero(t, st.Retried)
	assert.Zero(t, st.Failed)
}

func TestAnItemThatKeepsMovingFailsWithItsPath(t *testing.T) {
	s := newState(t, parallel.Config{Limit: 1, MaxBatch: 1, MaxMoves: 2, Retry: parallel.Retry{Attempts: 3}})
	tr := agenttest.Run(evolve, s, unbounded, input("a"),
		moved(0, "x", "a1"), step(pace.In(pace.Pass{N: 1})),
		moved(0, "y", "a2"), step(pace.In(pace.Pass{N: 1})),
		moved(0, "x", "a3"))
	got := emitted(tr[6].Effects)
	require.Len(t, got, 1)
	assert.ErrorIs(t, got[0].Err, parallel.ErrMoves)
	assert.EqualError(t, got[0].Err, `parallel: item 0 moved more than 2 times, to "x" → "y" → "x": parallel: the item moved too many times`)
	letters := agenttest.Of[agent.DeadLetter](tr[6].Effects)
	require.Len(t, letters, 1)
	assert.Equal(t, "a2", letters[0].Item, "the dead letter holds the state its last step began with")
	assert.Equal(t, 1, letters[0].Attempts, "moves spent no attempt")
	st := agenttest.Last(tr).Status()
	assert.Equal(t, 2, st.Moved)
	assert.Equal(t, 1, st.Failed)
}

func TestAMoveWithAStateOfTheWrongTypeFails(t *testing.T) {
	s := newState(t, parallel.Config{Limit: 1, MaxBatch: 1})
	tr := agenttest.Run(evolve, s, unbounded, input("a"), moved(0, "gpu", 42))
	got := emitted(tr[2].Effects)
	require.Len(t, got, 1)
	assert.EqualError(t, got[0].Err, `parallel: item 0 moves to tag "gpu" with a next input of type int, but the stage's items are of type string`)
}

func TestAMoveInABatchGoesOnAloneAndKeepsInputOrder(t *testing.T) {
	s := newState(t, parallel.Config{Limit: 1, MaxBatch: 3})
	tr := agenttest.Run(evolve, s, unbounded, input("a", "b", "c"), done(0, 1))
	require.Equal(t, []agent.Start[batch]{start(1, "b", "c")}, starts(tr[2].Effects))
	tr = agenttest.Run(evolve, agenttest.Last(tr),
		step(agent.Done[[]result]{ID: 1, Result: []result{{Seq: 1, Err: &moveTo{"gpu", "b+"}}, {Seq: 2, Value: 3}}}),
		step(pace.In(pace.Pass{N: 1})), done(1, 2))
	assert.Empty(t, emitted(tr[0].Effects), "c waits for b, which goes on")
	assert.Equal(t, []agent.Start[batch]{start(1, "b+")}, starts(tr[1].Effects), "alone")
	assert.Equal(t, []result{{Seq: 1, Value: 2}, {Seq: 2, Value: 3}}, emitted(tr[2].Effects))
}

func TestMaxMovesMustNotBeNegative(t *testing.T) {
	_, err := parallel.NewState[string, int](parallel.Config{Limit: 1, MaxMoves: -1})
	assert.ErrorIs(t, err, parallel.ErrConfig)
	assert.ErrorContains(t, err, "max moves must not be negative, got -1")
}

// doc is the state of a document's work, which a move carries: its text
// so far, and the steps done.
type doc struct {
	Text  string
	Steps []string
}

func TestWorkMovesThroughItsStepsInARunningAgent(t *testing.T) {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	var got []parallel.Result[string]
	h, err := parallel.New(rt, parallel.Config{Limit: 4},
		func(_ context.Context, d doc) (string, error) {
			switch len(d.Steps) {
			case 0:
				return "", &moveTo{"stop-words", doc{Text: strings.ToLower(d.Text), Steps: []string{"lower"}}}
			case 1:
				return "", &moveTo{"model", doc{Text: strings.TrimSpace(d.Text), Steps: append(d.Steps, "trim")}}
			}
			return d.Text + " via " + strings.Join(d.Steps, ","), nil
		},
		func(r parallel.Result[string]) { got = append(got, r) })
	require.NoError(t, err)
	ctx := context.Background()
	for i := range 20 {
		require.NoError(t, h.Post(ctx, doc{Text: fmt.Sprintf("  DOC %d ", i)}))
	}
	h.Close()
	require.NoError(t, h.Wait(ctx))
	require.Len(t, got, 20)
	for i, r := range got {
		require.NoError(t, r.Err)
		assert.Equal(t, uint64(i), r.Seq, "in input order")
		assert.Equal(t, fmt.Sprintf("doc %d via lower,trim", i), r.Value)
	}
	st, err := h.Status(ctx)
	require.NoError(t, err, "the final status")
	assert.Equal(t, 40, st.Moved)
}

func TestWorkWrittenForARemoteStageMovesInAParallelOne(t *testing.T) {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	var got []parallel.Result[int]
	h, err := parallel.New(rt, parallel.Config{Limit: 2},
		func(_ context.Context, n int) (int, error) {
			if n < 100 {
				return 0, remote.Move("big", n*10)
			}
			return n, nil
		},
		func(r parallel.Result[int]) { got = append(got, r) })
	require.NoError(t, err)
	ctx := context.Background()
	for i := 1; i <= 3; i++ {
		require.NoError(t, h.Post(ctx, i))
	}
	h.Close()
	require.NoError(t, h.Wait(ctx))
	assert.Equal(t, []parallel.Result[int]{{Seq: 0, Value: 100}, {Seq: 1, Value: 200}, {Seq: 2, Value: 300}}, got)
}
