//go:build !race

package remote_test

import (
	"context"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The items of the small client are numbered from smallBase, those of
// the slow client from slowBase, whose work takes slowTimes as long as
// the others'; those below are the big client's, or the quick one's.
const (
	smallBase = 1_000_000
	slowBase  = 2_000_000
	slowTimes = 5
)

// client keys the test's items by client.
func client(v int) string {
	switch {
	case v >= slowBase:
		return "slow"
	case v >= smallBase:
		return "small"
	}
	return "big"
}

// timed is a stage of keyed items on workers of two slots each, which
// take workTime an item, and the instants its results came at.
type timed struct {
	h    agent.Handle[int, remote.Status]
	came chan time.Time // the instant each small result came
}

// keyedStage starts a keyed stage named name on a node of its own, with
// workers of two slots each, and waits for them to register.
func keyedStage(t *testing.T, name string, workers int) timed {
	t.Helper()
	node, rt := nodeAndRuntime(t)
	s := timed{came: make(chan time.Time, 1<<12)}
	h, err := remote.New[int, job](rt, remote.Config[int]{Node: node, Name: name, Key: client, Unordered: true,
		Queue: 1 << 12, KeyQueue: 1 << 12, MaxPrefetch: remote.NoPrefetch}, func(r remote.Result[job]) {
		if r.Err == nil && client(r.Value.V/2) == "small" {
			s.came <- time.Now()
		}
	})
	require.NoError(t, err)
	s.h = h
	for n := range workers {
		startWorker(t, node.Addr(), name, 2, "", name+string(rune('a'+n)), workTime)
	}
	eventually(t, h, 10*time.Second, "the workers register", func(st remote.Status) bool { return len(st.Workers) == workers })
	return s
}

// workTime is what an item's work takes.
const workTime = 8 * time.Millisecond

// small posts the small client's n items and returns how long they took,
// from the first posted to the last result.
func (s timed) small(t *testing.T, n int) time.Duration {
	t.Helper()
	start := time.Now()
	for i := range n {
		require.NoError(t, s.h.Post(context.Background(), smallBase+i))
	}
	var last time.Time
	for range n {
		select {
		case last = <-s.came:
		case <-time.After(10 * time.Second):
			t.Fatal("the small client's results did not come")
		}
	}
	return last.Sub(start)
}

// A big client with a hundred times the items of a small one does not
// slow it down: sharing the stage, the small client's items finish as
// fast as they would alone on half its workers. First come, first
// served, they would wait for the big client's backlog.
func TestASmallClientIsNotHeldUpByABigOnesBacklog(t *testing.T) {
	const nSmall, nBig = 20, 2000
	alone := keyedStage(t, "alone", 1).small(t, nSmall)

	shared := keyedStage(t, "shared", 2)
	for i := range nBig {
		require.NoError(t, shared.h.Post(context.Background(), i))
	}
	eventually(t, shared.h, 5*time.Second, "the big client's backlog is queued", func(st remote.Status) bool {
		return st.Keys["big"] > nBig/2
	})
	took := shared.small(t, nSmall)
	st := status(t, shared.h)
	fifo := time.Duration(st.Keys["big"]) * workTime / 4
	t.Logf("the small client's %d items of %v: shared %v, alone on half the slots %v; big's %d queued would hold them %v first come, first served",
		nSmall, workTime, took.Round(time.Millisecond), alone.Round(time.Millisecond), st.Keys["big"], fifo.Round(time.Millisecond))
	assert.LessOrEqual(t, took, alone*3/2+50*time.Millisecond, "shared no slower than alone on half the workers, within a margin for a loaded machine")
	assert.Greater(t, st.Started["big"], 0, "the big client went on meanwhile")
}

// A client of slow items gets no more of the workers than one of quick
// items: both backlogged, the work started for each, in time, is about
// the same. First come, first served, the quick client's items, posted
// first, would have all of it.
func TestASlowClientGetsNoMoreOfTheWorkersThanAQuickOne(t *testing.T) {
	const nQuick, nSlow = 600, 600 / slowTimes // 3 s of work each, on 4 slots
	s := keyedStage(t, "slowquick", 2)
	for i := range nQuick {
		require.NoError(t, s.h.Post(context.Background(), i))
	}
	for i := range nSlow {
		require.NoError(t, s.h.Post(context.Background(), slowBase+i))
	}
	work := func(st remote.Status) (quick, slow time.Duration) {
		return time.Duration(st.Started["big"]) * workTime, time.Duration(st.Started["slow"]) * workTime * slowTimes
	}
	var st remote.Status
	eventually(t, s.h, 10*time.Second, "a second of work each", func(got remote.Status) bool {
		st = got
		quick, slow := work(got)
		return quick+slow >= 2*time.Second
	})
	quick, slow := work(st)
	t.Logf("work started: quick %v (%d items), slow %v (%d items); queued %v",
		quick, st.Started["big"], slow, st.Started["slow"], st.Keys)
	require.Positive(t, st.Keys["big"], "still backlogged")
	require.Positive(t, st.Keys["slow"], "still backlogged")
	assert.InDelta(t, 1, float64(slow)/float64(quick), 0.25, "alike within a quarter")
}

// Post lets one key fill only its part of a keyed stage's queue: with no
// worker to take them, a big client's items stop at KeyQueue, and a
// small client's still get in.
func TestAFloodOfOneKeyLeavesTheOthersRoomInTheQueue(t *testing.T) {
	node, rt := nodeAndRuntime(t)
	h, err := remote.New[int, job](rt, remote.Config[int]{Node: node, Name: "flood", Key: client, Unordered: true,
		Queue: 8, KeyQueue: 3}, nil)
	require.NoError(t, err)
	posted := 0
	for i := range 10 {
		if err := h.TryPost(i); err != nil {
			require.ErrorIs(t, err, agent.ErrFull)
			break
		}
		posted++
	}
	assert.Equal(t, 3, posted, "the big client fills its part of the queue, no more")
	require.NoError(t, h.TryPost(smallBase), "the small client's item gets in beside the big one's")
	require.NoError(t, h.TryPost(smallBase+1))
	assert.ErrorIs(t, h.TryPost(7), agent.ErrFull, "and the big client's are still refused")
}
