package book

import (
	"errors"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/internal/pace"
	"github.com/stretchr/testify/assert"
)

// Shorthands for the tables of a book behind a pacer (see pace.go).
var (
	paced      = step(pace.In(pace.Paced{}))
	noPrefetch = agent.Send[Prefetch]{Value: Prefetch{N: 0}}
)

func passes(n int) agenttest.Step  { return step(pace.In(pace.Pass{N: n})) }
func reserveFx(n int) agent.Effect { return pace.Out(pace.Reserve{N: n}) }
func roomFx(n int) agent.Effect    { return pace.Out(pace.Room{N: n}) }
func succeeded(item uint64) Outcome[int] {
	return Outcome[int]{Item: item, Attempt: 1, Value: int(item)}
}

// answer is worker id's outcomes, asking for asked more tasks, as a
// worker's message does.
func answer(id WorkerID, asked int, os ...Outcome[int]) agenttest.Step {
	return event(Outcomes[int]{Worker: id, Outcomes: os, Asked: asked})
}

func TestBehindAPacerItemsComeIntoTheRoomOfFreeSlotsAndStartAsTheyCome(t *testing.T) {
	tr := play(t, options[string]{Queue: 8, MaxBatch: 4, Lease: lease},
		pullAll,
		paced,
		join(1, 3),
		ask(1, 3),
		items("a", "b"),
		items("c"),
		answer(1, 1, succeeded(0)),
	)
	assert.Equal(t, []agent.Effect{noPrefetch}, tr[1].Effects, "paced, it grants no prefetch; with no worker it opens no room")
	assert.Empty(t, tr[2].Effects, "a worker that has asked for nothing is no room")
	assert.Equal(t, []agent.Effect{roomFx(3)}, tr[3].Effects, "room for the slots asked for")
	assert.Equal(t, []agent.Effect{send(1, taskOf(0, 1, "a"), taskOf(1, 1, "b")), agent.Demand{N: 2}, leaseIn(lease)}, tr[4].Effects,
		"the items that come go out in the step they came in")
	assert.Equal(t, []agent.Effect{send(1, taskOf(2, 1, "c")), agent.Demand{N: 1}}, tr[5].Effects)
	assert.Equal(t, []agent.Effect{emit(res{Seq: 0, Value: 0}), roomFx(1)}, tr[6].Effects, "a slot that frees is room again")
	st := agenttest.Last(tr).Snapshot()
	assert.True(t, st.Paced)
	assert.Equal(t, 1, st.Room)
	assert.Equal(t, 2, st.InFlight)
}

func TestBehindAPacerAWorkerIsHandedNoMoreTasksThanItHasSlotsFree(t *testing.T) {
	tr := play(t, options[string]{Queue: 8, Lease: lease},
		pullAll,
		event(Joined{Worker: 1, Addr: "w1", Slots: 2, Prefetch: 3}), // before the pace was known
		ask(1, 5), // its slots and its prefetch
		paced,
		items("a", "b", "c"), // the pacer let three through: one finds no slot
		answer(1, 1, succeeded(0)),
		passes(1),
	)
	assert.Equal(t, []agent.Effect{noPrefetch, roomFx(2)}, tr[3].Effects, "room for its free slots, not its prefetch")
	assert.Equal(t, []agent.Effect{send(1, taskOf(0, 1, "a"), taskOf(1, 1, "b")), agent.Demand{N: 2}, leaseIn(lease)}, tr[4].Effects,
		"the item with no slot waits, and reserves no pass while no slot may take it")
	assert.Equal(t, []agent.Effect{emit(res{Seq: 0, Value: 0}), reserveFx(1)}, tr[5].Effects,
		"a slot frees: the item waiting reserves a pass for it, and no room opens")
	assert.Equal(t, []agent.Effect{send(1, taskOf(2, 1, "c")), agent.Demand{N: 1}}, tr[6].Effects, "it goes as the pass comes")
	w := agenttest.Last(tr).Snapshot().Workers[0]
	assert.Equal(t, 2, w.InFlight, "never more than its slots")
}

func TestBehindAPacerTasksTakenBackGoOutOnlyAsPassesCome(t *testing.T) {
	tr := play(t, options[string]{Queue: 8, Lease: lease},
		pullAll,
		paced,
		join(1, 2),
		join(2, 2),
		ask(1, 2),
		ask(2, 2),
		items("a", "b", "c", "d"),
		lose(1), // a and b are taken back, as failed attempts
		answer(2, 1, succeeded(1+1)),
		passes(3), // more than it reserved: the rest is no pass of its
		answer(2, 1, succeeded(3)),
		passes(1),
	)
	assert.Equal(t, []agent.Effect{send(1, taskOf(0, 1, "a"), taskOf(1, 1, "b")), send(2, taskOf(2, 1, "c"), taskOf(3, 1, "d")),
		agent.Demand{N: 4}, leaseIn(lease)}, tr[6].Effects)
	assert.Empty(t, tr[7].Effects, "no slot free: the items taken back reserve nothing yet")
	assert.Equal(t, []agent.Effect{reserveFx(1)}, tr[8].Effects, "a slot frees: one pass, and no room while it is kept")
	assert.Equal(t, []agent.Effect{send(2, taskOf(0, 2, "a"))}, tr[9].Effects, "one task for the one pass reserved")
	assert.Equal(t, []agent.Effect{reserveFx(1)}, tr[10].Effects)
	assert.Equal(t, []agent.Effect{send(2, taskOf(1, 2, "b"))}, tr[11].Effects)
	st := agenttest.Last(tr).Snapshot()
	assert.Equal(t, 2, st.Requeued)
	assert.Zero(t, st.Queued)
}

func TestBehindAPacerAPassThatFindsNoSlotIsDropped(t *testing.T) {
	tr := play(t, options[string]{Queue: 8, Lease: lease},
		pullAll,
		paced,
		join(1, 1),
		join(2, 1),
		ask(1, 1),
		ask(2, 1),
		items("a", "b"),
		answer(1, 1, Outcome[int]{Item: 0, Attempt: 1, Err: errors.New("busy")}),
		lose(1), // the slot the pass was reserved for goes
		passes(1),
		answer(2, 1, succeeded(1)),
		passes(1),
	)
	assert.Equal(t, []agent.Effect{reserveFx(1)}, tr[7].Effects, "the failed item reserves a pass for the slot its worker freed")
	assert.Empty(t, tr[9].Effects, "no slot for it: the pass is dropped, not kept for later")
	assert.Equal(t, []agent.Effect{reserveFx(1), agent.Disarm{Tag: leaseTag}}, tr[10].Effects,
		"a slot frees: the item reserves a pass again (b's result waits for it, in input order)")
	assert.Equal(t, []agent.Effect{send(2, taskOf(0, 2, "a")), leaseIn(lease)}, tr[11].Effects)
}

func TestBehindAPacerTheRoomKeepsTheWindowAndTheInputBound(t *testing.T) {
	tr := play(t, options[string]{Queue: 2, Window: 3, Lease: lease},
		pullAll,
		paced,
		join(1, 8),
		ask(1, 8),
		items("a", "b"),
	)
	assert.Equal(t, []agent.Effect{roomFx(2)}, tr[3].Effects, "no more room than the input bound")
	assert.Equal(t, []agent.Effect{send(1, taskOf(0, 1, "a"), taskOf(1, 1, "b")), agent.Demand{N: 2}, roomFx(1), leaseIn(lease)},
		tr[4].Effects, "no more than the window")
}

func TestBehindAPacerAnItemNoFreeSlotMayTakeWaitsForOne(t *testing.T) {
	tr := play(t, options[string]{Queue: 8, Lease: lease, TagWait: 5 * time.Second, Tag: gpuTag},
		pullAll,
		paced,
		join(1, 2),
		ask(1, 2),
		items("gpu:x", "y"),
		join(2, 1, "gpu"),
		ask(2, 1),
		passes(1),
	)
	assert.Equal(t, []agent.Effect{send(1, taskOf(1, 1, "y")), agent.Demand{N: 1}, roomFx(1), leaseIn(lease), agent.Timer{Tag: waitTag, Delay: 5 * time.Second}},
		tr[4].Effects, "the tagged item waits for a worker with its tag, with no pass, and the free slot is room")
	assert.Equal(t, []agent.Effect{agent.Disarm{Tag: waitTag}}, tr[5].Effects)
	assert.Equal(t, []agent.Effect{reserveFx(1)}, tr[6].Effects, "a slot that may take it: it reserves a pass")
	assert.Equal(t, []agent.Effect{send(2, taskOf(0, 1, "gpu:x")), agent.Demand{N: 1}}, tr[7].Effects)
}

func TestBehindAPacerClosedTheBookOpensNoRoomAndStillRetries(t *testing.T) {
	tr := play(t, options[string]{Queue: 8, Lease: lease},
		pullAll,
		paced,
		join(1, 1),
		ask(1, 1),
		items("a"),
		closeIn,
		answer(1, 1, Outcome[int]{Item: 0, Attempt: 1, Err: errors.New("busy")}),
		passes(1),
		answer(1, 1, Outcome[int]{Item: 0, Attempt: 2, Value: 7}),
	)
	assert.Equal(t, []agent.Effect{reserveFx(1), agent.Disarm{Tag: leaseTag}}, tr[6].Effects, "closed: no room, but the retry reserves its pass")
	assert.Equal(t, []agent.Effect{send(1, taskOf(0, 2, "a")), leaseIn(lease)}, tr[7].Effects)
	assert.Equal(t, []agent.Effect{emit(res{Seq: 0, Value: 7}), agent.Disarm{Tag: leaseTag}, agent.Finish{}}, tr[8].Effects)
}

func TestWithoutAPacerTheBookReservesNothingAndOpensNoRoom(t *testing.T) {
	tr := play(t, options[string]{Queue: 8, Lease: lease, MaxPrefetch: NoPrefetch},
		pullAll,
		join(1, 2),
		join(2, 2),
		ask(1, 2),
		ask(2, 2),
		items("a", "b", "c"),
		lose(1),
		passes(4), // none was reserved: nothing to do
	)
	assert.Equal(t, []agent.Effect{send(2, taskOf(0, 2, "a"))}, tr[6].Effects,
		"an item taken back goes out at once to the free slot, as it did")
	assert.Empty(t, tr[7].Effects)
	assert.False(t, agenttest.Last(tr).Snapshot().Paced)
}
