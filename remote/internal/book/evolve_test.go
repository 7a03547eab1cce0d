package book

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/remote/internal/census"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Shorthands for the step tables below: the master takes strings, and its
// workers' work returns ints.
type (
	mstate = *Book[string, int, res]
	res    = Result[int]
	sendFx = agent.Send[Dispatch[string]]
)

var (
	pullAll  = step(agent.Pull{N: agent.Unbounded})
	closeIn  = step(agent.Close{})
	leaseTag = leaseTimer
	waitTag  = tagWaitTimer
)

func step(m agent.Msg) agenttest.Step { return agenttest.Step{Msg: m} }

// after is st at T0 + d.
func after(d time.Duration, st agenttest.Step) agenttest.Step { st.At = d; return st }

func event[E any](v E) agenttest.Step { return step(agent.Event[E]{Value: v}) }

func items(xs ...string) agenttest.Step { return step(agent.Input[string]{Items: xs}) }

func join(id WorkerID, slots int, tags ...string) agenttest.Step {
	return event(Joined{Worker: id, Addr: fmt.Sprintf("w%d", id), Slots: slots, Tags: tags})
}

func ask(id WorkerID, n int) agenttest.Step { return event(Asked{Worker: id, N: n}) }

func lose(id WorkerID) agenttest.Step { return event(Lost{Worker: id}) }

func quit(id WorkerID, handed ...uint64) agenttest.Step {
	return event(Left{Worker: id, Handed: handed})
}

// ok returns worker id's success at item's attempt, with v.
func ok(id WorkerID, item uint64, attempt, v int) agenttest.Step {
	return event(Outcomes[int]{Worker: id, Outcomes: []Outcome[int]{{Item: item, Attempt: attempt, Value: v}}})
}

// fail returns worker id's failure at item's attempt, with err.
func fail(id WorkerID, item uint64, attempt int, err error) agenttest.Step {
	return event(Outcomes[int]{Worker: id, Outcomes: []Outcome[int]{{Item: item, Attempt: attempt, Err: err}}})
}

func tick(tag uint64) agenttest.Step { return step(agent.Tick{Tag: tag}) }

func taskOf(item uint64, attempt int, v string) Task[string] {
	return Task[string]{Item: item, Attempt: attempt, Value: v}
}

func send(id WorkerID, tasks ...Task[string]) sendFx {
	return sendFx{Value: Dispatch[string]{Worker: id, Tasks: tasks}}
}

func emit(rs ...res) agent.Emit[res] { return agent.Emit[res]{Values: rs} }

func leaseIn(d time.Duration) agent.Timer { return agent.Timer{Tag: leaseTag, Delay: d} }

// newMaster returns a master built from cfg that gives up no worker for
// its silence, so that the tables need not list the silence timer:
// heartbeat_test.go tests that rule.
func newMaster(t *testing.T, cfg options[string]) mstate {
	t.Helper()
	s, err := newBook[string, int](cfg)
	require.NoError(t, err)
	s.silence = 0
	return s
}

// play runs steps from a master built from cfg. agenttest.Run clones the
// book before each step, so every Trace keeps the book as it was then. Its
// traces leave out the agent.DeadLetter effects, which
// TestAnItemThatFailsForGoodIsADeadLetter looks at.
func play(t *testing.T, cfg options[string], steps ...agenttest.Step) []agenttest.Trace[mstate] {
	t.Helper()
	return agenttest.Run(func(s mstate, m agent.Msg) (mstate, []agent.Effect) {
		s, fx := evolve(s, m)
		return s, slices.DeleteFunc(fx, func(e agent.Effect) bool { _, dead := e.(agent.DeadLetter); return dead })
	}, newMaster(t, cfg), steps...)
}

// bookkeeping returns a deep copy of what b knows, less its Tag function,
// for tests to compare two books with reflect.DeepEqual.
func bookkeeping[I, O, R any](b *Book[I, O, R]) any {
	c := b.Clone()
	c.tagOf, c.keyOf, c.result = nil, nil, nil
	return *c
}

// gpuTag routes the items "gpu:..." to the workers with the tag gpu.
func gpuTag(item string) string {
	if strings.HasPrefix(item, "gpu:") {
		return "gpu"
	}
	return ""
}

const lease = 10 * time.Second

func TestAskedSlotsAreFilledInBatchesAndInputSlotsComeBack(t *testing.T) {
	tr := play(t, options[string]{MaxBatch: 2, Queue: 8, Lease: lease, MaxPrefetch: NoPrefetch},
		pullAll,
		join(1, 3),
		items("a", "b", "c", "d", "e"),
		ask(1, 3),
		ask(1, 5), // capped at its 3 slots
	)
	assert.Empty(t, tr[1].Effects, "a worker joins with no free slot")
	assert.Empty(t, tr[2].Effects, "nobody asked yet")
	assert.Equal(t, []agent.Effect{
		send(1, taskOf(0, 1, "a"), taskOf(1, 1, "b")),
		send(1, taskOf(2, 1, "c")),
		agent.Demand{N: 3},
		leaseIn(lease),
	}, tr[3].Effects)
	assert.Equal(t, []agent.Effect{
		send(1, taskOf(3, 1, "d"), taskOf(4, 1, "e")),
		agent.Demand{N: 2},
	}, tr[4].Effects)
	st := agenttest.Last(tr).Snapshot()
	assert.Equal(t, 5, st.InFlight)
	assert.Zero(t, st.Queued)
	assert.Equal(t, []census.Worker{{ID: 1, Addr: "w1", Slots: 3, Free: 1, InFlight: 5}}, st.Workers)
}

func TestWorkSpreadsOverTheWorkersThatAsked(t *testing.T) {
	tr := play(t, options[string]{Lease: lease},
		pullAll,
		join(2, 2), join(1, 2),
		ask(1, 2), ask(2, 2),
		items("a", "b", "c"),
		items("d"),
	)
	assert.Equal(t, []agent.Effect{
		send(1, taskOf(0, 1, "a"), taskOf(1, 1, "b")),
		send(2, taskOf(2, 1, "c")),
		agent.Demand{N: 3},
		leaseIn(lease),
	}, tr[5].Effects, "workers in ID order")
	assert.Equal(t, []agent.Effect{send(2, taskOf(3, 1, "d")), agent.Demand{N: 1}}, tr[6].Effects,
		"the next dispatch starts after the worker last served")
}

func TestResultsGoOutInInputOrder(t *testing.T) {
	tr := play(t, options[string]{Lease: lease},
		pullAll, join(1, 3), ask(1, 3), items("a", "b", "c"),
		ok(1, 2, 1, 12),
		ok(1, 0, 1, 10),
		ok(1, 1, 1, 11),
	)
	assert.Equal(t, []agent.Effect(nil), tr[4].Effects, "held for 0 and 1")
	assert.Equal(t, 1, tr[4].State.Snapshot().Held)
	assert.Equal(t, []agent.Effect{emit(res{Seq: 0, Value: 10})}, tr[5].Effects)
	assert.Equal(t, []agent.Effect{
		emit(res{Seq: 1, Value: 11}, res{Seq: 2, Value: 12}),
		agent.Disarm{Tag: leaseTag},
	}, tr[6].Effects, "nothing leased: the lease timer goes")
	st := agenttest.Last(tr).Snapshot()
	assert.Equal(t, 3, st.Done)
	assert.Equal(t, 3, st.Emitted)
	assert.Equal(t, 3, st.Workers[0].Done)
	assert.Zero(t, st.Workers[0].InFlight)
	assert.Zero(t, st.Workers[0].Free, "a result gives no slot back: the worker asks")
}

func TestUnorderedResultsGoOutAsTheyCome(t *testing.T) {
	tr := play(t, options[string]{Lease: lease, Unordered: true},
		pullAll, join(1, 3), ask(1, 3), items("a", "b", "c"),
		ok(1, 2, 1, 12),
		ok(1, 0, 1, 10),
		ok(1, 1, 1, 11),
	)
	assert.Equal(t, []agent.Effect{emit(res{Seq: 2, Value: 12})}, tr[4].Effects)
	assert.Equal(t, []agent.Effect{emit(res{Seq: 0, Value: 10})}, tr[5].Effects)
	assert.Equal(t, []agent.Effect{emit(res{Seq: 1, Value: 11}), agent.Disarm{Tag: leaseTag}}, tr[6].Effects)
}

func TestDemandLimitsEmission(t *testing.T) {
	tr := play(t, options[string]{Lease: lease, Unordered: true},
		step(agent.Pull{N: 1}), join(1, 3), ask(1, 3), items("a", "b", "c"),
		ok(1, 1, 1, 11),
		ok(1, 0, 1, 10),
		ok(1, 2, 1, 12),
		step(agent.Pull{N: 5}),
		step(agent.Pull{N: 0}),
	)
	assert.Equal(t, []agent.Effect{emit(res{Seq: 1, Value: 11})}, tr[4].Effects)
	assert.Empty(t, tr[5].Effects, "no demand left")
	assert.Equal(t, []agent.Effect{agent.Disarm{Tag: leaseTag}}, tr[6].Effects)
	assert.Equal(t, 2, tr[6].State.Snapshot().Held)
	assert.Equal(t, []agent.Effect{emit(res{Seq: 0, Value: 10}, res{Seq: 2, Value: 12})}, tr[7].Effects)
	assert.Equal(t, agent.Credit(3), tr[7].State.Snapshot().Demand)
	assert.Empty(t, tr[8].Effects)
}

func TestWindowBoundsTheItemsHandedOutAndNotEmitted(t *testing.T) {
	tr := play(t, options[string]{Lease: lease, Window: 2},
		pullAll, join(1, 4), ask(1, 4), items("a", "b", "c", "d"),
		ok(1, 1, 1, 11), // held for a: still two handed out
		ok(1, 0, 1, 10), // both out: two more may go
	)
	assert.Equal(t, []agent.Effect{
		send(1, taskOf(0, 1, "a"), taskOf(1, 1, "b")),
		agent.Demand{N: 2},
		leaseIn(lease),
	}, tr[3].Effects)
	assert.Empty(t, tr[4].Effects)
	assert.Equal(t, []agent.Effect{
		emit(res{Seq: 0, Value: 10}, res{Seq: 1, Value: 11}),
		send(1, taskOf(2, 1, "c"), taskOf(3, 1, "d")),
		agent.Demand{N: 2},
	}, tr[5].Effects)
}

func TestAFailedAttemptIsRetriedUntilMaxAttempts(t *testing.T) {
	first, second := errors.New("first"), errors.New("second")
	tr := play(t, options[string]{Lease: lease, MaxAttempts: 2},
		pullAll, join(1, 1), ask(1, 1), items("a"),
		fail(1, 0, 1, first),
		ask(1, 1),
		fail(1, 0, 2, second),
		closeIn,
	)
	assert.Equal(t, []agent.Effect{agent.Disarm{Tag: leaseTag}}, tr[4].Effects, "requeued: no slot to give back")
	st := tr[4].State.Snapshot()
	assert.Equal(t, 1, st.Retried)
	assert.Equal(t, 1, st.Queued)
	assert.Equal(t, 1, st.Workers[0].Failed)
	assert.Equal(t, []agent.Effect{send(1, taskOf(0, 2, "a")), leaseIn(lease)}, tr[5].Effects)
	assert.Equal(t, []agent.Effect{emit(res{Seq: 0, Err: second}), agent.Disarm{Tag: leaseTag}}, tr[6].Effects,
		"the last error is the item's")
	assert.Equal(t, []agent.Effect{agent.Finish{Err: second}}, tr[7].Effects)
	st = agenttest.Last(tr).Snapshot()
	assert.Equal(t, 1, st.Failed)
	assert.Equal(t, 1, st.Done)
	assert.Equal(t, 1, st.Retried)
}

func TestALostWorkersItemsAreRequeuedAtOnceAsFailedAttempts(t *testing.T) {
	tr := play(t, options[string]{Lease: lease, MaxAttempts: 2},
		pullAll, join(1, 2), ask(1, 2), items("a", "b"),
		join(2, 1), ask(2, 1),
		lose(1),
		lose(2),
		lose(2), // not registered any more: ignored
	)
	assert.Equal(t, []agent.Effect{send(2, taskOf(0, 2, "a"))}, tr[6].Effects,
		"the lease timer stays at the earliest deadline, a's first")
	st := tr[6].State.Snapshot()
	assert.Equal(t, 2, st.Requeued)
	assert.Equal(t, 1, st.Queued)
	assert.Equal(t, []uint64{2}, workerIDs(st))
	fx := tr[7].Effects
	require.Len(t, fx, 3)
	assert.Equal(t, []agent.Effect{agent.Disarm{Tag: leaseTag}, agent.Timer{Tag: waitTag, Delay: DefaultTagWait}}, fx[1:],
		"b waits for a worker now")
	rs := agenttest.Emitted[res](fx)
	require.Len(t, rs, 1)
	assert.Equal(t, uint64(0), rs[0].Seq)
	assert.ErrorIs(t, rs[0].Err, ErrWorkerLost, "a's second attempt was lost too")
	assert.EqualError(t, rs[0].Err, "remote: item 0 failed 2 attempts, the last on worker 2: "+ErrWorkerLost.Error())
	assert.Equal(t, 2, tr[7].State.Snapshot().Requeued, "failing for good is no requeue")
	assert.Equal(t, 1, tr[7].State.Snapshot().Waiting, "b waits for a worker")
	assert.Nil(t, tr[8].Effects)
}

func TestALeavingWorkerHandsItemsBackWithoutSpendingAnAttempt(t *testing.T) {
	wait := 5 * time.Second
	tr := play(t, options[string]{Lease: lease, MaxAttempts: 1, TagWait: wait},
		pullAll, join(1, 2), ask(1, 2), items("a", "b"),
		quit(1, 0, 7), // b was sent as it left, so it is not listed; 7 was never leased to it
		join(2, 1), ask(2, 1),
		ok(1, 1, 1, 11), // a late result from the worker that left still counts, being the first
		ok(2, 0, 2, 10),
	)
	assert.Equal(t, []agent.Effect{agent.Disarm{Tag: leaseTag}, agent.Timer{Tag: waitTag, Delay: wait}}, tr[4].Effects,
		"nothing is leased any more, and no worker is left for a and b")
	st := tr[4].State.Snapshot()
	assert.Equal(t, 2, st.Requeued, "every item leased to the worker comes back, listed or not")
	assert.Equal(t, 2, st.Queued)
	assert.Zero(t, st.InFlight)
	assert.Empty(t, st.Workers)
	assert.Equal(t, []agent.Effect{agent.Disarm{Tag: waitTag}}, tr[5].Effects)
	assert.Equal(t, []agent.Effect{send(2, taskOf(0, 2, "a")), agent.Timer{Tag: leaseTag, Delay: lease}}, tr[6].Effects,
		"a new attempt number, though MaxAttempts is 1: handing back is no failure")
	assert.Empty(t, tr[7].Effects, "b's result waits for a's")
	assert.Equal(t, []agent.Effect{
		emit(res{Seq: 0, Value: 10}, res{Seq: 1, Value: 11}),
		agent.Disarm{Tag: leaseTag},
	}, tr[8].Effects)
	assert.Zero(t, agenttest.Last(tr).Snapshot().Failed)
}

func TestAnExpiredLeaseRequeuesAndCountsTheSlotHung(t *testing.T) {
	tr := play(t, options[string]{Lease: lease, MaxAttempts: 3, MaxPrefetch: NoPrefetch},
		pullAll, join(1, 2), ask(1, 2), items("a"), // a leased to 1 at 0s
		after(4*time.Second, join(2, 1)),
		after(5*time.Second, ask(2, 1)),
		after(10*time.Second, tick(leaseTag)),
		after(11*time.Second, ok(1, 0, 1, 10)), // late, but first
		after(12*time.Second, ok(2, 0, 2, 99)), // the duplicate
	)
	assert.Equal(t, []agent.Effect{leaseIn(lease)}, tr[3].Effects[2:])
	assert.Equal(t, []agent.Effect{send(2, taskOf(0, 2, "a")), leaseIn(lease)}, tr[6].Effects,
		"the item goes to the next worker in turn, under a new lease")
	st := tr[6].State.Snapshot()
	assert.Equal(t, 1, st.Requeued)
	assert.Equal(t, census.Worker{ID: 1, Addr: "w1", Slots: 2, Free: 1, Failed: 1, Hung: 1}, st.Workers[0],
		"its slot stays taken by the hung work, its other slot free")
	assert.Equal(t, []agent.Effect{emit(res{Seq: 0, Value: 10}), agent.Disarm{Tag: leaseTag}}, tr[7].Effects)
	st = tr[7].State.Snapshot()
	assert.Zero(t, st.Workers[0].Hung, "the late result freed the slot")
	assert.Equal(t, 1, st.Workers[0].Done)
	assert.Zero(t, st.Workers[1].InFlight, "the result taken, worker 2's attempt no longer counts")
	assert.Empty(t, tr[8].Effects)
	assert.Equal(t, 1, tr[8].State.Snapshot().Duplicates)
	assert.Zero(t, tr[8].State.Snapshot().Workers[1].Done)
}

func TestAWorkerWithAHungItemGoesOnWithItsOtherSlots(t *testing.T) {
	tr := play(t, options[string]{Lease: lease, MaxAttempts: 3, MaxPrefetch: NoPrefetch},
		pullAll, join(1, 2), ask(1, 2), items("a", "b"), // both leased to 1 at 0s
		after(time.Second, event(Outcomes[int]{Worker: 1, Outcomes: []Outcome[int]{{Item: 1, Attempt: 1, Value: 11}}, Asked: 1})),
		after(10*time.Second, tick(leaseTag)), // a's work hangs
		after(11*time.Second, items("c")),
		after(12*time.Second, event(Outcomes[int]{Worker: 1, Outcomes: []Outcome[int]{{Item: 0, Attempt: 2, Value: 10}}, Asked: 1})),
		after(13*time.Second, event(Outcomes[int]{Worker: 1, Outcomes: []Outcome[int]{{Item: 2, Attempt: 1, Value: 12}}, Asked: 1})),
		closeIn,
	)
	assert.Equal(t, []agent.Effect{send(1, taskOf(0, 2, "a")), leaseIn(lease)}, tr[5].Effects,
		"a is tried again on the worker's free slot")
	assert.Equal(t, census.Worker{ID: 1, Addr: "w1", Slots: 2, InFlight: 1, Done: 1, Failed: 1, Hung: 1}, tr[5].State.Snapshot().Workers[0])
	assert.Empty(t, tr[6].Effects, "both slots busy: c waits")
	assert.Equal(t, []agent.Effect{emit(res{Seq: 0, Value: 10}, res{Seq: 1, Value: 11}), send(1, taskOf(2, 1, "c")), agent.Demand{N: 1}, leaseIn(lease)},
		tr[7].Effects)
	assert.Equal(t, []agent.Effect{emit(res{Seq: 2, Value: 12}), agent.Disarm{Tag: leaseTag}}, tr[8].Effects)
	assert.Equal(t, []agent.Effect{agent.Finish{}}, tr[9].Effects, "the stage finishes, though a's first attempt still hangs")
	assert.Equal(t, 1, agenttest.Last(tr).Snapshot().Workers[0].Hung)
}

func TestTheLateResultOfAHungAttemptCountsHoweverOldItIs(t *testing.T) {
	tr := play(t, options[string]{Lease: lease, MaxAttempts: 4, MaxPrefetch: NoPrefetch},
		pullAll, join(1, 1), join(2, 1), join(3, 1), ask(1, 1), items("a"), // a leased to 1 at 0s
		ask(2, 1),
		after(10*time.Second, tick(leaseTag)), // to 2
		ask(3, 1),
		after(20*time.Second, tick(leaseTag)), // to 3
		after(21*time.Second, ok(1, 0, 1, 10)),
	)
	assert.Equal(t, []agent.Effect{send(3, taskOf(0, 3, "a")), leaseIn(lease)}, tr[9].Effects)
	assert.Equal(t, []agent.Effect{emit(res{Seq: 0, Value: 10}), agent.Disarm{Tag: leaseTag}}, tr[10].Effects,
		"worker 1 held attempt 1, though two came after it")
	st := tr[10].State.Snapshot()
	assert.Zero(t, st.Refused)
	assert.Equal(t, []int{0, 1, 0}, []int{st.Workers[0].Hung, st.Workers[1].Hung, st.Workers[2].Hung})
}

func TestWhenEverySlotHangsItemsFailAfterTagWait(t *testing.T) {
	wait := 5 * time.Second
	tr := play(t, options[string]{Lease: lease, MaxAttempts: 3, TagWait: wait, MaxPrefetch: NoPrefetch},
		pullAll, join(1, 1), ask(1, 1), items("a", "b"), // a leased at 0s
		after(10*time.Second, tick(leaseTag)),
		after(15*time.Second, tick(waitTag)),
		closeIn,
	)
	assert.Equal(t, []agent.Effect{agent.Timer{Tag: waitTag, Delay: wait}}, tr[4].Effects,
		"the only worker has every slot hung: no worker may take a nor b")
	st := tr[4].State.Snapshot()
	assert.Equal(t, 2, st.Waiting)
	assert.Equal(t, 1, st.Workers[0].Hung)
	rs := agenttest.Emitted[res](tr[5].Effects)
	require.Len(t, rs, 2)
	for _, r := range rs {
		assert.ErrorIs(t, r.Err, ErrNoWorker)
	}
	assert.EqualError(t, rs[0].Err,
		"remote: item 0 waited 5s, and every worker that may take it has all its slots hung: "+ErrNoWorker.Error())
	assert.Equal(t, []agent.Effect{agent.Finish{Err: rs[0].Err}}, tr[6].Effects, "the stage ends, with a clear error")
}

// A line that gave up stays given up while no worker may take its items:
// what comes then fails at once, not a TagWait later a queue's worth at a
// time; once a hung slot comes back, items wait for it as before.
func TestItemsThatComeWhileEverySlotIsStillHungFailAtOnce(t *testing.T) {
	wait := 5 * time.Second
	tr := play(t, options[string]{Lease: lease, MaxAttempts: 3, TagWait: wait, MaxPrefetch: NoPrefetch},
		pullAll, join(1, 1), ask(1, 1), items("a"), // a leased at 0s
		after(10*time.Second, tick(leaseTag)), // a hangs its slot
		after(15*time.Second, tick(waitTag)),  // a fails: the line gives up
		after(16*time.Second, items("b", "c")),
		after(30*time.Second, items("d")),
		after(31*time.Second, ok(1, 0, 1, 10)), // the hung work returns: the slot is free
		after(32*time.Second, items("e")),
		after(32*time.Second, ask(1, 1)),
	)
	rs := agenttest.Emitted[res](tr[6].Effects)
	require.Len(t, rs, 2, "b and c fail as they come")
	for _, r := range rs {
		assert.ErrorIs(t, r.Err, ErrNoWorker)
	}
	assert.EqualError(t, rs[0].Err,
		"remote: item 1 came after items that waited 5s, and every worker that may take it has all its slots hung: "+ErrNoWorker.Error())
	assert.Contains(t, tr[6].Effects, agent.Effect(agent.Demand{N: 2}), "their input slots come back at once")
	assert.NotContains(t, tr[6].Effects, agent.Effect(agent.Timer{Tag: waitTag, Delay: wait}), "no TagWait for them")
	require.Len(t, agenttest.Emitted[res](tr[7].Effects), 1, "nor for d, however late")
	assert.Empty(t, agenttest.Emitted[res](tr[8].Effects), "a's late outcome is a duplicate")
	assert.Empty(t, agenttest.Emitted[res](tr[9].Effects), "e waits for the slot that came back")
	assert.Equal(t, []agent.Effect{send(1, taskOf(4, 1, "e")), agent.Demand{N: 1}, leaseIn(lease)}, tr[10].Effects)
}

func TestAHungSlotThatComesBackTakesWorkAgain(t *testing.T) {
	wait := 5 * time.Second
	tr := play(t, options[string]{Lease: lease, MaxAttempts: 3, TagWait: wait, MaxPrefetch: NoPrefetch},
		pullAll, join(1, 1), ask(1, 1), items("a", "b"),
		after(10*time.Second, tick(leaseTag)),
		after(12*time.Second, event(Outcomes[int]{Worker: 1, Outcomes: []Outcome[int]{{Item: 0, Attempt: 1, Value: 10}}, Asked: 1})),
	)
	assert.Equal(t, []agent.Effect{
		emit(res{Seq: 0, Value: 10}),
		send(1, taskOf(1, 1, "b")),
		agent.Demand{N: 1},
		agent.Timer{Tag: leaseTag, Delay: lease},
		agent.Disarm{Tag: waitTag},
	}, tr[5].Effects, "the late result is a's, and the slot it frees takes b")
	st := tr[5].State.Snapshot()
	assert.Zero(t, st.Workers[0].Hung)
	assert.Zero(t, st.Waiting)
}

func TestAPrefetchedItemsLeaseStartsWhenASlotFreesForIt(t *testing.T) {
	tr := play(t, options[string]{Lease: lease, MaxAttempts: 3, MaxPrefetch: 2},
		pullAll, join(1, 2), ask(1, 9), items("a", "b", "c", "d"), // all four sent at 0s
		after(4*time.Second, event(Outcomes[int]{Worker: 1, Outcomes: []Outcome[int]{{Item: 1, Attempt: 1, Value: 11}}})),
		after(10*time.Second, tick(leaseTag)), // a hangs
	)
	assert.Equal(t, 4, tr[2].State.Snapshot().Workers[0].Free, "capped at 2 slots and a prefetch of 2")
	assert.Equal(t, []agent.Effect{
		send(1, taskOf(0, 1, "a"), taskOf(1, 1, "b"), taskOf(2, 1, "c"), taskOf(3, 1, "d")),
		agent.Demand{N: 4},
		leaseIn(lease),
	}, tr[3].Effects, "two leases run: c and d wait for a slot")
	assert.Empty(t, tr[4].Effects, "b's slot freed: c's lease runs from 4s, the timer stays at a's")
	assert.Equal(t, []agent.Effect{leaseIn(4 * time.Second)}, tr[5].Effects,
		"a hangs: d's lease runs from 10s, since a may never give its slot back; the timer goes to c's")
	st := tr[5].State.Snapshot()
	assert.Equal(t, census.Worker{ID: 1, Addr: "w1", Slots: 2, InFlight: 2, Done: 1, Failed: 1, Hung: 1}, st.Workers[0])
	assert.Equal(t, 1, st.Queued, "a waits for the worker to ask again")
}

func TestALostWorkersPrefetchedItemsSpendNoAttempt(t *testing.T) {
	tr := play(t, options[string]{Lease: lease, MaxAttempts: 1, MaxPrefetch: 2},
		pullAll, join(1, 1), ask(1, 3), items("a", "b", "c"), // a's lease runs, b and c wait
		lose(1),
	)
	rs := agenttest.Emitted[res](tr[4].Effects)
	require.Len(t, rs, 1, "a failed its only attempt")
	assert.ErrorIs(t, rs[0].Err, ErrWorkerLost)
	st := tr[4].State.Snapshot()
	assert.Equal(t, 2, st.Queued, "b and c never started: queued again")
	assert.Equal(t, 2, st.Requeued)
	assert.Equal(t, 1, st.Failed)
}

func TestASilentWorkersPrefetchedItemsAreTakenBackAtOnce(t *testing.T) {
	tr := play(t, options[string]{Lease: lease, MaxAttempts: 1, MaxPrefetch: 2},
		pullAll, join(1, 1), ask(1, 3), items("a", "b", "c"), // all three sent at 0s, a's lease runs
		after(10*time.Second, tick(leaseTag)),
		after(11*time.Second, event(Outcomes[int]{Worker: 1, Outcomes: []Outcome[int]{{Item: 1, Attempt: 1, Value: 11}}, Asked: 1})),
	)
	fx := tr[4].Effects
	rs := agenttest.Emitted[res](fx)
	require.Len(t, rs, 1, "a failed its only attempt")
	assert.ErrorIs(t, rs[0].Err, ErrLeaseExpired)
	assert.Equal(t, agent.Timer{Tag: waitTag, Delay: DefaultTagWait}, fx[len(fx)-1], "b and c wait: the worker is stalled")
	st := tr[4].State.Snapshot()
	assert.Equal(t, census.Worker{ID: 1, Addr: "w1", Slots: 1, Failed: 1, Hung: 3}, st.Workers[0],
		"silent for a whole lease, its waiting items are taken back with a's, and held hung")
	assert.Equal(t, 2, st.Queued)
	assert.Equal(t, 2, st.Requeued, "b and c, with no attempt spent: MaxAttempts 1 failed only a")
	assert.Equal(t, 1, st.Failed)
	assert.Equal(t, []agent.Effect{emit(res{Seq: 1, Value: 11})}, tr[5].Effects[:1],
		"b's late result counts: the worker held it")
	assert.Equal(t, 2, tr[5].State.Snapshot().Workers[0].Hung)
}

func TestALeaseExpiringForTheLastTimeFailsTheItem(t *testing.T) {
	tr := play(t, options[string]{Lease: lease, MaxAttempts: 1},
		pullAll, join(1, 2), ask(1, 1), items("a"),
		after(3*time.Second, ask(1, 1)),
		after(3*time.Second, items("b")), // b leased at 3s
		after(10*time.Second, tick(leaseTag)),
		after(13*time.Second, tick(leaseTag)),
	)
	assert.Equal(t, []agent.Effect{send(1, taskOf(1, 1, "b")), agent.Demand{N: 1}}, tr[5].Effects,
		"the lease timer stays at a's deadline")
	fx := tr[6].Effects
	require.Len(t, fx, 2)
	rs := agenttest.Emitted[res](fx)
	require.Len(t, rs, 1)
	assert.ErrorIs(t, rs[0].Err, ErrLeaseExpired)
	assert.Equal(t, leaseIn(3*time.Second), fx[1], "then at b's")
	fx = tr[7].Effects
	require.Len(t, fx, 1)
	assert.ErrorIs(t, agenttest.Emitted[res](fx)[0].Err, ErrLeaseExpired)
	assert.Zero(t, tr[7].State.Snapshot().Requeued)
}

func TestAStaleTickDoesNothingEarly(t *testing.T) {
	tr := play(t, options[string]{Lease: lease},
		pullAll, join(1, 1), ask(1, 1), items("a"),
		after(5*time.Second, tick(leaseTag)),
		after(6*time.Second, tick(waitTag)),
		after(7*time.Second, tick(99)),
	)
	for _, i := range []int{4, 5, 6} {
		assert.Empty(t, tr[i].Effects, "step %d", i)
		assert.Equal(t, tr[3].State.Snapshot(), tr[i].State.Snapshot(), "step %d", i)
	}
}

func TestADuplicateResultIsDropped(t *testing.T) {
	tr := play(t, options[string]{Lease: lease},
		pullAll, join(1, 2), ask(1, 2), items("a", "b"),
		ok(1, 0, 1, 10),
		ok(1, 0, 1, 10),
		fail(1, 0, 1, errors.New("late")),
		ok(1, 9, 1, 90), // never accepted
		fail(1, 1, 7, errors.New("another attempt's")),
	)
	for _, i := range []int{5, 6, 7, 8} {
		assert.Empty(t, tr[i].Effects, "step %d", i)
	}
	st := agenttest.Last(tr).Snapshot()
	assert.Equal(t, 4, st.Duplicates)
	assert.Equal(t, 1, st.Emitted)
	assert.Equal(t, 1, st.InFlight)
	assert.Equal(t, 1, st.Workers[0].Done)
	assert.Zero(t, st.Workers[0].Failed)
}

func TestATaggedItemGoesOnlyToAWorkerWithItsTag(t *testing.T) {
	tr := play(t, options[string]{Lease: lease, Tag: gpuTag},
		pullAll,
		join(1, 4), join(2, 2, "gpu"),
		items("gpu:a", "b", "gpu:c"),
		ask(1, 4),
		ask(2, 2),
	)
	assert.Equal(t, []agent.Effect{send(1, taskOf(1, 1, "b")), agent.Demand{N: 1}, leaseIn(lease)}, tr[4].Effects)
	st := tr[4].State.Snapshot()
	assert.Equal(t, map[string]int{"gpu": 2}, st.Tags)
	assert.Zero(t, st.Waiting, "worker 2 has the tag")
	assert.Equal(t, []agent.Effect{send(2, taskOf(0, 1, "gpu:a"), taskOf(2, 1, "gpu:c")), agent.Demand{N: 2}}, tr[5].Effects)
	assert.Nil(t, agenttest.Last(tr).Snapshot().Tags)
}

func TestAWorkerWithTagsTakesTheOldestItemItMay(t *testing.T) {
	tr := play(t, options[string]{Lease: lease, Tag: gpuTag},
		pullAll, join(1, 3, "gpu", "gpu"),
		items("a", "gpu:b", "c", "gpu:d"),
		ask(1, 3),
	)
	assert.Equal(t, []agent.Effect{
		send(1, taskOf(0, 1, "a"), taskOf(1, 1, "gpu:b"), taskOf(2, 1, "c")),
		agent.Demand{N: 3},
		leaseIn(lease),
	}, tr[3].Effects)
}

func TestAnItemNoWorkerCanTakeFailsAfterTagWait(t *testing.T) {
	wait := 5 * time.Second
	tr := play(t, options[string]{Lease: lease, TagWait: wait, Tag: gpuTag},
		pullAll,
		join(1, 1),
		after(1*time.Second, items("gpu:a", "b")),
		after(2*time.Second, items("gpu:c")),
		after(6*time.Second, tick(waitTag)),
	)
	assert.Equal(t, []agent.Effect{agent.Timer{Tag: waitTag, Delay: wait}}, tr[2].Effects)
	assert.Equal(t, 1, tr[2].State.Snapshot().Waiting)
	assert.Empty(t, tr[3].Effects, "the line has been stuck since the first")
	assert.Equal(t, 2, tr[3].State.Snapshot().Waiting)
	fx := tr[4].Effects
	require.Len(t, fx, 2)
	rs := agenttest.Emitted[res](fx)
	require.Len(t, rs, 1, "b, taken by no one yet, holds c's result back")
	assert.Equal(t, uint64(0), rs[0].Seq)
	assert.ErrorIs(t, rs[0].Err, ErrNoWorker)
	assert.EqualError(t, rs[0].Err,
		`remote: item 0 needs tag "gpu" and waited 5s, and no worker with it registered: `+ErrNoWorker.Error())
	assert.Equal(t, agent.Demand{N: 2}, fx[1], "the items left their line")
	st := tr[4].State.Snapshot()
	assert.Equal(t, 2, st.Failed)
	assert.Zero(t, st.Waiting)
	assert.Equal(t, map[string]int{"": 1}, st.Tags)
}

func TestAWorkerWithTheTagStopsTheWait(t *testing.T) {
	tr := play(t, options[string]{Lease: lease, TagWait: 5 * time.Second, Tag: gpuTag},
		pullAll,
		items("gpu:a"),
		after(3*time.Second, join(1, 1, "gpu")),
		after(5*time.Second, tick(waitTag)), // stale
		after(6*time.Second, lose(1)),
		after(8*time.Second, items("b")),
		after(11*time.Second, tick(waitTag)),
	)
	assert.Equal(t, []agent.Effect{agent.Timer{Tag: waitTag, Delay: 5 * time.Second}}, tr[1].Effects)
	assert.Equal(t, []agent.Effect{agent.Disarm{Tag: waitTag}}, tr[2].Effects)
	assert.Empty(t, tr[3].Effects)
	assert.Equal(t, []agent.Effect{agent.Timer{Tag: waitTag, Delay: 5 * time.Second}}, tr[4].Effects,
		"the wait starts again when the last worker with the tag goes")
	assert.Empty(t, tr[5].Effects, "the untagged line waits from 8s: the timer stays at 11s")
	assert.Equal(t, 2, tr[5].State.Snapshot().Waiting)
	fx := tr[6].Effects
	require.Len(t, fx, 3)
	rs := agenttest.Emitted[res](fx)
	require.Len(t, rs, 1)
	assert.ErrorIs(t, rs[0].Err, ErrNoWorker)
	assert.Equal(t, agent.Demand{N: 1}, fx[1])
	assert.Equal(t, agent.Timer{Tag: waitTag, Delay: 2 * time.Second}, fx[2], "b gives up at 13s")
}

func TestCloseDrainsThenFinishesOnce(t *testing.T) {
	tr := play(t, options[string]{Lease: lease},
		pullAll, join(1, 2), ask(1, 2), items("a", "b"),
		closeIn,
		ok(1, 0, 1, 10),
		ok(1, 1, 1, 11),
		closeIn,
		items("late"),
		ask(1, 2),
	)
	assert.Empty(t, tr[4].Effects)
	assert.True(t, tr[4].State.Snapshot().Closed)
	assert.Equal(t, []agent.Effect{emit(res{Seq: 0, Value: 10})}, tr[5].Effects)
	assert.Equal(t, []agent.Effect{
		emit(res{Seq: 1, Value: 11}),
		agent.Disarm{Tag: leaseTag},
		agent.Finish{},
	}, tr[6].Effects)
	for _, i := range []int{7, 8, 9} {
		assert.Nil(t, tr[i].Effects, "step %d: nothing after Finish", i)
	}
	assert.Equal(t, 2, agenttest.Last(tr).Snapshot().Accepted)
}

func TestFinishCarriesTheFirstFailure(t *testing.T) {
	first, second := errors.New("first"), errors.New("second")
	tr := play(t, options[string]{Lease: lease, MaxAttempts: 1},
		pullAll, join(1, 3), ask(1, 3), items("a", "b", "c"),
		fail(1, 2, 1, first),
		fail(1, 0, 1, second),
		closeIn,
		ok(1, 1, 1, 11),
	)
	assert.Equal(t, []agent.Effect{emit(res{Seq: 0, Err: second})}, tr[5].Effects)
	assert.Equal(t, []agent.Effect{
		emit(res{Seq: 1, Value: 11}, res{Seq: 2, Err: first}),
		agent.Disarm{Tag: leaseTag},
		agent.Finish{Err: first},
	}, tr[7].Effects, "the first failure seen, not the first emitted")
}

func TestQueryRepliesWithTheStatus(t *testing.T) {
	tr := play(t, options[string]{Lease: lease, Tag: gpuTag, Queue: 5},
		step(agent.Pull{N: 7}),
		join(2, 3, "gpu"), join(1, 1),
		ask(2, 3),
		items("a", "b", "gpu:c", "d"),
		ok(2, 1, 1, 11),
		ok(2, 0, 1, 10),
		ok(2, 0, 1, 10),
		lose(2),
		step(agent.Query{ID: 42}),
	)
	want := census.Snapshot{
		Load:       agent.Load{Queued: 2, Done: 2, Demand: 5},
		Workers:    []census.Worker{{ID: 1, Addr: "w1", Slots: 1}},
		Tags:       map[string]int{"gpu": 1, "": 1},
		Waiting:    1,
		Requeued:   1,
		Duplicates: 1,
		Accepted:   4,
		Emitted:    2,
	}
	assert.Equal(t, []agent.Effect{agent.Reply[census.Snapshot]{To: 42, Value: want}}, tr[9].Effects)
	assert.Equal(t, want, tr[9].State.Snapshot())
	assert.Equal(t, tr[8].State.Snapshot(), tr[9].State.Snapshot(), "a Query changes nothing")
}

func TestAQueryIsAnsweredAfterFinish(t *testing.T) {
	tr := play(t, options[string]{}, closeIn, step(agent.Query{ID: 1}))
	assert.Equal(t, []agent.Effect{agent.Finish{}}, tr[0].Effects)
	assert.Equal(t, []agent.Effect{agent.Reply[census.Snapshot]{To: 1, Value: census.Snapshot{Closed: true}}}, tr[1].Effects)
}

func TestUnknownMessagesAreUnhandled(t *testing.T) {
	s := agenttest.Last(play(t, options[string]{Lease: lease}, pullAll, join(1, 1), ask(1, 1), items("a", "b")))
	want := bookkeeping(s)
	for _, m := range []agent.Msg{
		agent.Input[int]{Items: []int{1}},
		agent.Done[int]{ID: 0},
		agent.Set[int]{Value: 5},
		agent.Event[int]{Value: 1},
		agent.Event[Outcomes[string]]{},
		agent.Event[*Joined]{},
	} {
		next, fx := evolve(s, agent.Stamp(m, agenttest.T0))
		assert.Equal(t, []agent.Effect{agent.Unhandled{}}, fx, "%T", m)
		assert.Equal(t, want, bookkeeping(next), "%T", m)
	}
}

func TestEventsAboutUnknownWorkersAreIgnored(t *testing.T) {
	tr := play(t, options[string]{Lease: lease},
		pullAll, join(1, 1), items("a"),
		join(1, 5, "x"), // known already
		ask(9, 1),
		quit(9, 0),
		lose(9),
		ask(1, -3),
	)
	for i := 3; i < len(tr); i++ {
		assert.Empty(t, tr[i].Effects, "step %d", i)
		assert.Equal(t, tr[2].State.Snapshot(), tr[i].State.Snapshot(), "step %d", i)
	}
}

func TestCloneSharesNothing(t *testing.T) {
	s := agenttest.Last(play(t, options[string]{Lease: lease, Tag: gpuTag, Unordered: true},
		step(agent.Pull{N: 1}), join(1, 3, "gpu"), ask(1, 3), items("a", "gpu:b", "c"),
		ok(1, 1, 1, 11), ok(1, 0, 1, 10)))
	kept := s.Clone()
	before := kept.Snapshot()
	s, _ = evolve(s, agent.Stamp(agent.Event[Outcomes[int]]{Value: Outcomes[int]{
		Worker: 1, Outcomes: []Outcome[int]{{Item: 2, Attempt: 0, Value: 12}}}}, agenttest.T0))
	s, _ = evolve(s, agent.Stamp(agent.Event[Lost]{Value: Lost{Worker: 1}}, agenttest.T0))
	s, fx := evolve(s, agent.Stamp(agent.Pull{N: 5}, agenttest.T0))
	assert.Len(t, agenttest.Emitted[res](fx), 2)
	assert.NotEqual(t, before, s.Snapshot())
	assert.Equal(t, before, kept.Snapshot(), "the clone did not move")
	_, fx = evolve(kept, agent.Stamp(agent.Pull{N: 5}, agenttest.T0))
	assert.Equal(t, []res{{Seq: 0, Value: 10}}, agenttest.Emitted[res](fx), "and evolves on its own")
}

func TestNewBookStartsEmpty(t *testing.T) {
	assert.Equal(t, census.Snapshot{}, newMaster(t, options[string]{}).Snapshot(),
		"no demand until the first Pull, no worker until one joins")
}

// workerIDs returns the IDs of st's workers, in order.
func workerIDs(st census.Snapshot) []uint64 {
	var ids []uint64
	for _, w := range st.Workers {
		ids = append(ids, w.ID)
	}
	return ids
}

// BenchmarkEvolve measures the master alone, per item: one worker with 64
// slots asks for 64 items, an Input of 64 items dispatches them at once,
// and one returned brings their 64 results, which are emitted. The
// messages are built once, so what is counted is evolve's own cost.
func BenchmarkEvolve(b *testing.B) {
	for _, unordered := range []bool{false, true} {
		b.Run(map[bool]string{false: "ordered", true: "unordered"}[unordered], func(b *testing.B) {
			const batch = 64
			s, err := newBook[int, int](options[int]{Queue: batch, Window: batch, MaxBatch: batch, Unordered: unordered})
			if err != nil {
				b.Fatal(err)
			}
			items := make([]int, batch)
			outs := make([]Outcome[int], batch)
			var (
				askMsg     agent.Msg = agent.Event[Asked]{Value: Asked{Worker: 1, N: batch}}
				inputMsg   agent.Msg = agent.Input[int]{Items: items}
				resultsMsg agent.Msg = agent.Event[Outcomes[int]]{Value: Outcomes[int]{Worker: 1, Outcomes: outs}}
			)
			s, _ = evolve(s, agent.Pull{N: agent.Unbounded})
			s, _ = evolve(s, agent.Event[Joined]{Value: Joined{Worker: 1, Slots: batch}})
			var fx []agent.Effect
			emitted, rounds := 0, 0
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ReportAllocs()
			for b.Loop() {
				for i := range outs {
					outs[i] = Outcome[int]{Item: uint64(rounds*batch + i), Attempt: 1, Value: i}
				}
				s, _ = evolve(s, askMsg)
				s, _ = evolve(s, inputMsg)
				s, fx = evolve(s, resultsMsg)
				emitted += len(fx[0].(agent.Emit[Result[int]]).Values)
				rounds++
			}
			if emitted != rounds*batch {
				b.Fatalf("%d emitted in %d rounds of %d", emitted, rounds, batch)
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(emitted), "ns/item")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(emitted), "allocs/item")
		})
	}
}

func TestAnItemThatFailsForGoodIsADeadLetter(t *testing.T) {
	boom := errors.New("boom")
	s := newMaster(t, options[string]{MaxAttempts: 2, Lease: lease})
	var fx []agent.Effect
	for _, m := range []agent.Msg{
		agent.Pull{N: agent.Unbounded},
		event(Joined{Worker: 1, Slots: 1}).Msg,
		event(Asked{Worker: 1, N: 1}).Msg,
		agent.Input[string]{Items: []string{"a"}},
		event(Outcomes[int]{Worker: 1, Outcomes: []Outcome[int]{{Item: 0, Attempt: 1, Err: boom}}, Asked: 1}).Msg,
		event(Outcomes[int]{Worker: 1, Outcomes: []Outcome[int]{{Item: 0, Attempt: 2, Err: boom}}, Asked: 1}).Msg,
	} {
		s, fx = evolve(s, agent.Stamp(m, agenttest.T0))
	}
	assert.Equal(t, []agent.DeadLetter{{Seq: 0, Item: "a", Err: boom, Attempts: 2}}, agenttest.Of[agent.DeadLetter](fx))
	assert.Equal(t, agent.Effect(agent.DeadLetter{Seq: 0, Item: "a", Err: boom, Attempts: 2}), fx[0], "dead letters come first")
	assert.Equal(t, []Result[int]{{Seq: 0, Err: boom}}, agenttest.Emitted[Result[int]](fx), "its failed result still stands in its place")
}

func TestAnItemNoWorkerTookIsUnavailableNotFaulty(t *testing.T) {
	wait := 5 * time.Second
	tr := play(t, options[string]{TagWait: wait}, pullAll, items("a"), after(wait, tick(waitTag)))
	rs := agenttest.Emitted[res](tr[2].Effects)
	require.Len(t, rs, 1)
	assert.ErrorIs(t, rs[0].Err, ErrNoWorker)
	assert.ErrorIs(t, rs[0].Err, agent.ErrUnavailable, "so that a durable queue hands it back, with no attempt spent")
	assert.NotErrorIs(t, rs[0].Err, ErrLeaseExpired)
}
