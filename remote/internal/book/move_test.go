package book

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/remote/internal/move"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// moved returns worker id's ask that item, at attempt, go on with next on
// a worker with tag, after the moves to the tags steps it made itself.
func moved(id WorkerID, item uint64, attempt int, tag, next string, steps ...string) agenttest.Step {
	return event(Moves[string]{Worker: id, Addr: fmt.Sprintf("w%d", id),
		Moves: []Move[string]{{Item: item, Attempt: attempt, Tag: tag, Next: next, Steps: steps}}})
}

// okFrom is ok with the worker's address, and the moves it made itself.
func okFrom(id WorkerID, item uint64, attempt, v int, steps ...string) agenttest.Step {
	return event(Outcomes[int]{Worker: id, Addr: fmt.Sprintf("w%d", id),
		Outcomes: []Outcome[int]{{Item: item, Attempt: attempt, Value: v, Steps: steps}}})
}

func hop(item uint64, from, tag string, hops int, local bool, next ...any) agent.Send[Hop] {
	h := Hop{Item: item, From: from, Tag: tag, Hops: hops, Local: local}
	if len(next) > 0 {
		h.Next = next[0]
	}
	return agent.Send[Hop]{Value: h}
}

func TestAMoveQueuesTheItemForItsTagWithItsNewInputAndNoAttemptSpent(t *testing.T) {
	tr := play(t, options[string]{Lease: lease, MaxPrefetch: NoPrefetch},
		pullAll, join(1, 1), ask(1, 1), items("a"),
		moved(1, 0, 1, "gpu", "a+"),
		join(2, 1, "gpu"), ask(2, 1),
		okFrom(2, 0, 2, 7),
	)
	assert.Equal(t, []agent.Effect{hop(0, "w1", "gpu", 1, false, "a+"), agent.Disarm{Tag: leaseTag}, agent.Timer{Tag: waitTag, Delay: DefaultTagWait}},
		tr[4].Effects, "the lease ends, the move is logged, and the item waits for a worker with the tag")
	st := tr[4].State.Snapshot()
	assert.Equal(t, map[string]int{"gpu": 1}, st.Tags, "queued for its new tag")
	assert.Equal(t, 1, st.Waiting)
	assert.Equal(t, 1, st.Moves)
	assert.Equal(t, 1, st.Workers[0].Moved, "the worker it moved on from counts it")
	assert.Zero(t, st.Retried+st.Requeued+st.Failed+st.Workers[0].Failed)
	assert.Zero(t, tr[4].State.entry(0).failures, "no attempt spent")
	assert.Equal(t, []agent.Effect{
		send(2, Task[string]{Item: 0, Attempt: 2, Value: "a+", Hops: 1}),
		leaseIn(lease),
	}, tr[6].Effects, "the worker with the tag gets the new input")
	assert.Equal(t, []agent.Effect{
		emit(res{Seq: 0, Value: 7, Path: []move.Step{{Tag: "", Worker: "w1"}, {Tag: "gpu", Worker: "w2"}}}),
		agent.Disarm{Tag: leaseTag},
	}, tr[7].Effects)
}

func TestAnItemWithoutMovesHasNoPath(t *testing.T) {
	tr := play(t, options[string]{Lease: lease}, pullAll, join(1, 1), ask(1, 1), items("a"), okFrom(1, 0, 1, 7))
	assert.Equal(t, emit(res{Seq: 0, Value: 7}), tr[4].Effects[0])
}

func TestMovesAWorkerMadeItselfAreInThePathAndCounted(t *testing.T) {
	tr := play(t, options[string]{Lease: lease, Tag: gpuTag},
		pullAll, join(1, 1, "gpu", "disk"), ask(1, 1), items("gpu:a"),
		okFrom(1, 0, 1, 7, "disk", "gpu"),
	)
	assert.Equal(t, []agent.Effect{
		hop(0, "w1", "disk", 1, true), hop(0, "w1", "gpu", 2, true),
		emit(res{Seq: 0, Value: 7, Path: []move.Step{{Tag: "gpu", Worker: "w1"}, {Tag: "disk", Worker: "w1"}, {Tag: "gpu", Worker: "w1"}}}),
		agent.Disarm{Tag: leaseTag},
	}, tr[4].Effects)
	assert.Equal(t, 2, tr[4].State.Snapshot().Moves)
}

func TestAnItemThatMovesPastTheLimitIsADeadLetterNamingItsPath(t *testing.T) {
	tr := agenttest.Run(evolve[string, int], newMaster(t, options[string]{Lease: lease, MaxMoves: 2}),
		pullAll, join(1, 1, "x"), ask(1, 1), items("a"),
		moved(1, 0, 1, "x", "b"), ask(1, 1),
		moved(1, 0, 2, "x", "c"), ask(1, 1),
		moved(1, 0, 3, "x", "d"),
	)
	var dead []agent.DeadLetter
	var out []res
	for _, e := range tr[len(tr)-1].Effects {
		switch e := e.(type) {
		case agent.DeadLetter:
			dead = append(dead, e)
		case agent.Emit[res]:
			out = append(out, e.Values...)
		}
	}
	require.Len(t, dead, 1)
	assert.ErrorIs(t, dead[0].Err, move.ErrMoves)
	assert.Equal(t, "d", dead[0].Item, "the dead letter holds the item's last state")
	assert.Zero(t, dead[0].Attempts, "moves spend no attempt")
	assert.Contains(t, dead[0].Err.Error(), `"" on w1 → "x" on w1 → "x" on w1`)
	require.Len(t, out, 1)
	assert.ErrorIs(t, out[0].Err, move.ErrMoves)
	assert.Len(t, out[0].Path, 3)
}

func TestLocalMovesPastTheLimitFailTheItem(t *testing.T) {
	steps := make([]string, 40)
	tr := play(t, options[string]{Lease: lease, MaxMoves: 3}, pullAll, join(1, 1), ask(1, 1), items("a"), okFrom(1, 0, 1, 7, steps...))
	var r res
	for _, e := range tr[len(tr)-1].Effects {
		if e, ok := e.(agent.Emit[res]); ok {
			r = e.Values[0]
		}
	}
	assert.ErrorIs(t, r.Err, move.ErrMoves)
	assert.Len(t, r.Path, 4, "the path stops one step past the limit")
}

func TestAMoveFromAWorkerThatDoesNotHoldTheItemChangesNothing(t *testing.T) {
	tr := play(t, options[string]{Lease: lease},
		pullAll, join(1, 1), join(2, 1), ask(1, 1), items("a"),
		moved(2, 0, 1, "x", "forged"), // not its item
		moved(1, 0, 2, "x", "forged"), // not its attempt
		moved(1, 7, 1, "x", "forged"), // no such item
		moved(9, 0, 1, "x", "forged"), // no such worker
	)
	before := bookkeeping(tr[4].State)
	for _, tr := range tr[5:] {
		assert.Empty(t, tr.Effects)
	}
	after := agenttest.Last(tr)
	assert.Equal(t, 4, after.duplicates)
	after.duplicates = 0
	assert.Equal(t, before, bookkeeping(after), "nothing else changed")
	assert.Equal(t, "a", after.entry(0).value)
}

func TestAnOutcomeFromBeforeAMoveDoesNotCount(t *testing.T) {
	tr := play(t, options[string]{Lease: lease},
		pullAll, join(1, 1), ask(1, 1), items("a"),
		moved(1, 0, 1, "", "b"), ask(1, 1),
		okFrom(1, 0, 1, 5), // the attempt that moved
	)
	assert.Empty(t, tr[6].Effects)
	assert.Equal(t, 1, tr[6].State.duplicates)
	assert.Equal(t, phaseLeased, tr[6].State.entry(0).phase)
}

func TestAMoveToATagNoWorkerHoldsFailsAfterTagWait(t *testing.T) {
	tr := play(t, options[string]{Lease: lease, TagWait: 5 * time.Second},
		pullAll, join(1, 1), ask(1, 1), items("a"),
		moved(1, 0, 1, "nowhere", "b"),
		after(5*time.Second, tick(waitTag)),
	)
	assert.Contains(t, tr[4].Effects, agent.Effect(agent.Timer{Tag: waitTag, Delay: 5 * time.Second}))
	var r res
	for _, e := range tr[len(tr)-1].Effects {
		if e, ok := e.(agent.Emit[res]); ok {
			r = e.Values[0]
		}
	}
	assert.ErrorIs(t, r.Err, ErrNoWorker)
	assert.Contains(t, r.Err.Error(), `needs tag "nowhere"`)
}

func TestMovesToNewTagsStopAtTheLinesAStageKeeps(t *testing.T) {
	b := newMaster(t, options[string]{Lease: lease})
	for i := range move.MaxLines {
		b.line(fmt.Sprint("t", i))
	}
	steps := []agenttest.Step{pullAll, join(1, 1), ask(1, 1), items("a"), moved(1, 0, 1, strings.Repeat("z", 10), "b")}
	tr := agenttest.Run(evolve[string, int], b, steps...)
	var dead []agent.DeadLetter
	for _, e := range tr[len(tr)-1].Effects {
		if d, ok := e.(agent.DeadLetter); ok {
			dead = append(dead, d)
		}
	}
	require.Len(t, dead, 1)
	assert.Contains(t, dead[0].Err.Error(), "past the 1024 tags")
	assert.False(t, errors.Is(dead[0].Err, move.ErrMoves))
	assert.Len(t, agenttest.Last(tr).lines, move.MaxLines+1, "no line made for it")
}

// priorMoves reads the moves an item made before it came from its first
// character, a digit ("-" for a count below zero).
func priorMoves(v string) int {
	if v[0] == '-' {
		return -5
	}
	return int(v[0] - '0')
}

// lastResult returns the result the last trace emitted, failing the test
// if it emitted none.
func lastResult(t *testing.T, tr []agenttest.Trace[mstate]) res {
	t.Helper()
	for _, e := range tr[len(tr)-1].Effects {
		if e, ok := e.(agent.Emit[res]); ok {
			return e.Values[0]
		}
	}
	t.Fatal("no result emitted")
	return res{}
}

func TestMovesAnItemMadeBeforeItCameCountTowardTheLimit(t *testing.T) {
	tr := play(t, options[string]{Lease: lease, MaxMoves: 3, Moves: priorMoves, MaxPrefetch: NoPrefetch},
		pullAll, join(1, 1, "x"), ask(1, 1), items("2a"),
		moved(1, 0, 1, "x", "2b"), ask(1, 1),
		moved(1, 0, 2, "x", "2c"),
	)
	assert.Equal(t, send(1, Task[string]{Item: 0, Attempt: 1, Value: "2a", Hops: 2}), tr[3].Effects[0],
		"the worker learns the moves made before, so that it stops going on itself at the limit")
	assert.Equal(t, hop(0, "w1", "x", 1, false, "2b"), tr[4].Effects[0], "the hop counts the moves of this stage only")
	assert.Equal(t, send(1, Task[string]{Item: 0, Attempt: 2, Value: "2b", Hops: 3}), tr[5].Effects[0])
	r := lastResult(t, tr)
	assert.ErrorIs(t, r.Err, move.ErrMoves, "two moves before and two here are more than three")
	assert.Len(t, r.Path, 2, "the path holds the steps of this stage")
}

func TestLocalMovesCountTheMovesAnItemMadeBeforeItCame(t *testing.T) {
	steps := []string{"x", "x"}
	tr := play(t, options[string]{Lease: lease, MaxMoves: 3, Moves: priorMoves}, pullAll, join(1, 1), ask(1, 1), items("2a"), okFrom(1, 0, 1, 7, steps...))
	assert.ErrorIs(t, lastResult(t, tr).Err, move.ErrMoves, "two moves before and two on the worker are more than three")
	tr = play(t, options[string]{Lease: lease, MaxMoves: 3, Moves: priorMoves}, pullAll, join(1, 1), ask(1, 1), items("1a"), okFrom(1, 0, 1, 7, steps...))
	assert.NoError(t, lastResult(t, tr).Err, "one move before and two on the worker are three")
}

func TestANegativeCountOfMovesMadeBeforeIsNone(t *testing.T) {
	tr := play(t, options[string]{Lease: lease, MaxMoves: 1, Moves: priorMoves, MaxPrefetch: NoPrefetch},
		pullAll, join(1, 1, "x"), ask(1, 1), items("-a"), moved(1, 0, 1, "x", "-b"), ask(1, 1))
	assert.Equal(t, send(1, Task[string]{Item: 0, Attempt: 1, Value: "-a", Hops: 0}), tr[3].Effects[0])
	assert.Equal(t, send(1, Task[string]{Item: 0, Attempt: 2, Value: "-b", Hops: 1}), tr[5].Effects[0], "one move, within the limit")
}
