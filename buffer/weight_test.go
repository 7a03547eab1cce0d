package buffer_test

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/rate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// itself weighs an int as much as its value.
func itself(v int) int { return v }

// w is item v weighing weight.
func w(v, weight int) buffer.Item[int] { return buffer.Item[int]{Value: v, Weight: weight} }

// weighed is an Input of items with their weights.
func weighed(items ...buffer.Item[int]) agent.Input[buffer.Item[int]] {
	return agent.Input[buffer.Item[int]]{Items: items}
}

// byWeight returns the initial state for cfg, which cuts batches by weight.
func byWeight(t *testing.T, cfg buffer.Config[int]) buffer.State[int] {
	t.Helper()
	cfg.Weight = itself
	return newState(t, cfg)
}

// cuts grants s unbounded demand, delivers msgs and ends each flush as soon
// as it starts. It returns the batches in the order their flushes started,
// and the state after the last message.
func cuts(t *testing.T, s buffer.State[int], msgs ...agent.Msg) ([][]int, buffer.State[int]) {
	t.Helper()
	var out [][]int
	s = agenttest.Last(agenttest.Run(evolve, s, step{Msg: unbounded}))
	for _, m := range msgs {
		tr := agenttest.Run(evolve, s, step{Msg: m})
		for starts := agenttest.Of[agent.Start[[]int]](tr[0].Effects); len(starts) > 0; starts = agenttest.Of[agent.Start[[]int]](tr[0].Effects) {
			out = append(out, starts[0].Work)
			tr = agenttest.Run(evolve, tr[0].State, step{Msg: done(starts[0].ID)})
		}
		s = tr[0].State
	}
	return out, s
}

func TestABatchIsCutWhenItsWeightReachesMaxWeight(t *testing.T) {
	tr := agenttest.Run(evolve, byWeight(t, buffer.Config[int]{Size: 10, MaxWeight: 10}),
		step{Msg: unbounded},
		step{Msg: weighed(w(1, 3), w(2, 3))},
		step{Msg: weighed(w(3, 4))},
		step{Msg: weighed(w(4, 9))},
	)
	assert.Empty(t, tr[1].Effects)
	assert.Equal(t, 2, tr[1].State.Status().Pending)
	assert.Equal(t, 6, tr[1].State.Status().Weight)
	assert.Equal(t, []agent.Effect{start(1, 1, 2, 3), agent.Demand{N: 3}}, tr[2].Effects, "3+3+4 is the max weight")
	st := tr[2].State.Status()
	assert.Equal(t, 0, st.Pending)
	assert.Equal(t, 0, st.Weight)
	assert.Equal(t, 3, st.InFlight)
	assert.Empty(t, tr[3].Effects, "9 is under the max weight")
	assert.Equal(t, 9, tr[3].State.Status().Weight)
}

func TestAnItemThatWouldGoOverCutsTheOpenBatchFirst(t *testing.T) {
	tr := agenttest.Run(evolve, byWeight(t, buffer.Config[int]{Size: 10, MaxWeight: 10}),
		step{Msg: unbounded},
		step{Msg: weighed(w(1, 6), w(2, 5))},
		step{Msg: weighed(w(3, 5))},
		step{Msg: done(1)},
	)
	assert.Equal(t, []agent.Effect{start(1, 1), agent.Demand{N: 1}}, tr[1].Effects, "6+5 is over: 1 goes alone")
	st := tr[1].State.Status()
	assert.Equal(t, 1, st.Pending)
	assert.Equal(t, 5, st.Weight)
	assert.Empty(t, tr[2].Effects, "5+5 fits exactly, and is cut; it waits for the running flush")
	st = tr[2].State.Status()
	assert.Equal(t, 1, st.Waiting)
	assert.Equal(t, 2, st.Queued)
	assert.Equal(t, 0, st.Pending)
	assert.Equal(t, 0, st.Weight)
	assert.Equal(t, []agent.Effect{emit(1), start(2, 2, 3), agent.Demand{N: 2}}, tr[3].Effects)
}

func TestAnItemHeavierThanMaxWeightGoesOutAlone(t *testing.T) {
	tr := agenttest.Run(evolve, byWeight(t, buffer.Config[int]{Size: 10, MaxWeight: 10}),
		step{Msg: unbounded},
		step{Msg: weighed(w(1, 2), w(2, 25), w(3, 1))},
		step{Msg: done(1)},
		step{Msg: done(2)},
	)
	assert.Equal(t, []agent.Effect{start(1, 1), agent.Demand{N: 1}}, tr[1].Effects)
	st := tr[1].State.Status()
	assert.Equal(t, 1, st.Waiting, "25 is a batch of its own")
	assert.Equal(t, 1, st.Pending)
	assert.Equal(t, 1, st.Weight)
	assert.Equal(t, []agent.Effect{emit(1), start(2, 2), agent.Demand{N: 1}}, tr[2].Effects)
	assert.Equal(t, []agent.Effect{emit(2)}, tr[3].Effects)

	got, s := cuts(t, byWeight(t, buffer.Config[int]{MaxWeight: 10}),
		weighed(w(1, 11)),          // into an empty batch
		weighed(w(2, 1), w(3, 11)), // after a partial one
		weighed(w(4, 11), w(5, 11)),
		weighed(w(6, 0)),
	)
	assert.Equal(t, [][]int{{1}, {2}, {3}, {4}, {5}}, got)
	assert.Equal(t, 1, s.Status().Pending)
}

func TestTheLargestWeightNeitherOverflowsNorJoinsABatch(t *testing.T) {
	got, s := cuts(t, byWeight(t, buffer.Config[int]{Size: 10, MaxWeight: 10}),
		weighed(w(1, 5), w(2, math.MaxInt), w(3, 1), w(4, math.MaxInt), w(5, 9)),
	)
	assert.Equal(t, [][]int{{1}, {2}, {3}, {4}}, got)
	st := s.Status()
	assert.Equal(t, 1, st.Pending)
	assert.Equal(t, 9, st.Weight)
}

func TestSizeOrMaxWeightWhicheverComesFirst(t *testing.T) {
	got, s := cuts(t, byWeight(t, buffer.Config[int]{Size: 3, MaxWeight: 10}),
		weighed(w(1, 1), w(2, 1), w(3, 1)), // 3 items weighing 3: by size
		weighed(w(4, 5), w(5, 5)),          // 2 items weighing 10: by weight
		weighed(w(6, 4), w(7, 4), w(8, 4)), // 8 is too heavy for 6 and 7
		weighed(w(9, 2), w(10, 9)),         // 10 is too heavy for 8 and 9
	)
	assert.Equal(t, [][]int{{1, 2, 3}, {4, 5}, {6, 7}, {8, 9}}, got)
	st := s.Status()
	assert.Equal(t, 1, st.Pending)
	assert.Equal(t, 9, st.Weight)
	assert.Equal(t, 3, st.Size)
	assert.Equal(t, 10, st.MaxWeight)
}

func TestWithoutSizeOnlyWeightAndTheQueueCut(t *testing.T) {
	ones := make([]buffer.Item[int], 12)
	for i := range ones {
		ones[i] = w(i, 1)
	}
	got, s := cuts(t, byWeight(t, buffer.Config[int]{MaxWeight: 5}), weighed(ones...))
	assert.Equal(t, [][]int{{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}}, got)
	assert.Equal(t, 0, s.Status().Size)
	assert.Equal(t, 2, s.Status().Pending)

	// A batch that holds every slot of the queue is cut: no item could
	// come to make it heavier.
	got, s = cuts(t, byWeight(t, buffer.Config[int]{MaxWeight: 100, Queue: 4}), weighed(ones[:10]...))
	assert.Equal(t, [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}}, got)
	assert.Equal(t, 2, s.Status().Pending)
	assert.Equal(t, 2, s.Status().Weight)
}

func TestPlainItemsWeighNothing(t *testing.T) {
	got, s := cuts(t, byWeight(t, buffer.Config[int]{MaxWeight: 10}),
		in(1, 2, 3),
		weighed(w(4, 10)), // 0 + 10: joins, and the batch is full
		in(5),
		weighed(w(6, 9)),
		in(7),
	)
	assert.Equal(t, [][]int{{1, 2, 3, 4}}, got)
	st := s.Status()
	assert.Equal(t, 3, st.Pending)
	assert.Equal(t, 9, st.Weight)

	got, _ = cuts(t, s, weighed(w(8, 1)))
	assert.Equal(t, [][]int{{5, 6, 7, 8}}, got)
}

func TestWithoutMaxWeightWeightsCutNothing(t *testing.T) {
	got, s := cuts(t, newState(t, buffer.Config[int]{Size: 3}),
		weighed(w(1, 100), w(2, 100)),
	)
	assert.Empty(t, got)
	assert.Equal(t, 200, s.Status().Weight, "the open batch still says what it weighs")
	got, s = cuts(t, s, weighed(w(3, math.MaxInt/2)), in(4))
	assert.Equal(t, [][]int{{1, 2, 3}}, got)
	assert.Equal(t, 0, s.Status().Weight)
}

func TestTheLingerTimerOfABatchCutByWeightIsDisarmed(t *testing.T) {
	ms := time.Millisecond
	tr := agenttest.Run(evolve, byWeight(t, buffer.Config[int]{Size: 10, MaxWeight: 10, MaxWait: time.Second}),
		step{Msg: unbounded},
		step{At: 0, Msg: weighed(w(1, 4))},
		step{At: 100 * ms, Msg: weighed(w(2, 6))},
		step{At: 200 * ms, Msg: weighed(w(3, 1))},
		step{At: 300 * ms, Msg: weighed(w(4, 20))},
		step{At: 1000 * ms, Msg: agent.Tick{Tag: 0}},
		step{At: 1200 * ms, Msg: agent.Tick{Tag: 1}},
		step{At: 1300 * ms, Msg: done(1)},
	)
	assert.Equal(t, []agent.Effect{agent.Timer{Tag: 0, Delay: time.Second}}, tr[1].Effects)
	assert.Equal(t, []agent.Effect{agent.Disarm{Tag: 0}, start(1, 1, 2), agent.Demand{N: 2}}, tr[2].Effects,
		"cut by weight: its timer is disarmed")
	assert.Equal(t, []agent.Effect{agent.Timer{Tag: 1, Delay: time.Second}}, tr[3].Effects)
	assert.Equal(t, []agent.Effect{agent.Disarm{Tag: 1}}, tr[4].Effects,
		"cut before an item too heavy for it: its timer is disarmed, and neither waits for one")
	assert.Equal(t, 2, tr[4].State.Status().Waiting)
	assert.Equal(t, 0, tr[4].State.Status().Pending)
	assert.Empty(t, tr[5].Effects, "stale")
	assert.Equal(t, tr[4].State, tr[5].State)
	assert.Empty(t, tr[6].Effects, "stale")
	assert.Equal(t, tr[4].State, tr[6].State)
	assert.Equal(t, []agent.Effect{emit(1, 2), start(2, 3), agent.Demand{N: 1}}, tr[7].Effects)
}

func TestQueryReportsTheWeight(t *testing.T) {
	tr := agenttest.Run(evolve, byWeight(t, buffer.Config[int]{Size: 5, MaxWeight: 10, MaxWait: time.Second, Queue: 8}),
		step{Msg: unbounded},
		step{At: time.Second, Msg: weighed(w(1, 4), w(2, 7))},
		step{At: 2 * time.Second, Msg: agent.Query{ID: 3}},
	)
	want := buffer.Status{
		Load: agent.Load{Queued: 1, InFlight: 1, Demand: agent.Unbounded},
		Size: 5, MaxWeight: 10, MaxWait: time.Second, Queue: 8,
		Pending: 1, Weight: 7, Oldest: agenttest.T0.Add(time.Second),
	}
	assert.Equal(t, []agent.Effect{agent.Reply[buffer.Status]{To: 3, Value: want}}, tr[2].Effects)
	assert.Equal(t, tr[1].State, tr[2].State)
}

func TestNewWithAWeightBatchesByWeight(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		var out sink
		var weighings atomic.Int32
		weigh := func(v int) int { weighings.Add(1); return v }
		a, err := buffer.New(rt, buffer.Config[int]{MaxWeight: 10, Weight: weigh, Name: "bytes"}, nil, out.put)
		require.NoError(t, err)
		ctx := context.Background()
		for _, v := range []int{3, 3, 4, 6, 5, 20, 1} {
			require.NoError(t, a.Post(ctx, v))
		}
		synctest.Wait()
		assert.Equal(t, [][]int{{3, 3, 4}, {6}, {5}, {20}}, out.got())
		st, err := a.Status(ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, st.Pending)
		assert.Equal(t, 1, st.Weight)
		assert.Equal(t, int32(7), weighings.Load(), "each item is weighed once")

		a.Close()
		require.NoError(t, a.Wait(ctx))
		assert.Equal(t, [][]int{{3, 3, 4}, {6}, {5}, {20}, {1}}, out.got())
		st, err = a.Status(ctx)
		require.NoError(t, err, "the final snapshot")
		assert.Equal(t, buffer.Status{
			Load:      agent.Load{Done: 7, Demand: agent.Unbounded - 5},
			MaxWeight: 10, Queue: agent.DefaultQueue, Flushed: 5, Closed: true,
		}, st)
		assert.Equal(t, int32(7), weighings.Load())
	})
}

func TestWithoutSizeAFullQueueCutsABatch(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		var out sink
		one := func(int) int { return 1 }
		a, err := buffer.New(rt, buffer.Config[int]{MaxWeight: 100, Weight: one, Queue: 4}, nil, out.put)
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		for i := range 10 {
			require.NoError(t, a.Post(ctx, i), "item %d", i)
		}
		a.Close()
		require.NoError(t, a.Wait(ctx))
		assert.Equal(t, [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}, out.got())
	})
}

func TestPostAndTryPostRefuseANegativeWeight(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		var out sink
		weigh := func(v int) int {
			if v == 99 {
				panic("weight bug")
			}
			return v
		}
		release := make(chan struct{})
		flush := func(_ context.Context, b []int) error {
			if b[0] == 1 {
				<-release
			}
			return nil
		}
		a, err := buffer.New(rt, buffer.Config[int]{Size: 2, MaxWeight: 10, Weight: weigh, Queue: 2}, flush, out.put)
		require.NoError(t, err)
		ctx := context.Background()
		err = a.Post(ctx, -3)
		assert.EqualError(t, err, "buffer: weight must not be negative, got -3")
		assert.ErrorIs(t, err, buffer.ErrWeight)
		assert.ErrorIs(t, a.TryPost(-1), buffer.ErrWeight)
		assert.PanicsWithValue(t, "weight bug", func() { _ = a.TryPost(99) }, "Weight runs in the caller")

		require.NoError(t, a.Post(ctx, 1))
		require.NoError(t, a.Post(ctx, 2)) // a batch of 2: its flush starts, its slots come back
		synctest.Wait()
		require.NoError(t, a.Post(ctx, 4))
		require.NoError(t, a.Post(ctx, 5)) // a batch waiting for the first flush: the queue is full
		synctest.Wait()
		assert.ErrorIs(t, a.TryPost(6), agent.ErrFull)
		for range 3 {
			// Post would block on the full queue: a negative weight returns at once.
			assert.ErrorIs(t, a.Post(ctx, -2), buffer.ErrWeight)
			assert.ErrorIs(t, a.TryPost(-2), buffer.ErrWeight)
		}
		st, err := a.Status(ctx)
		require.NoError(t, err)
		assert.Equal(t, agent.Load{Queued: 2, InFlight: 2, Demand: agent.Unbounded}, st.Load, "no refused item was accepted")
		close(release)
		a.Close()
		require.NoError(t, a.Wait(ctx))
		assert.Equal(t, [][]int{{1, 2}, {4, 5}}, out.got())
		st, err = a.Status(ctx)
		require.NoError(t, err)
		assert.Equal(t, 4, st.Done)
	})
}

func TestAStageWithWeightsRefusesANegativeWeight(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		limit, err := rate.Stage(rate.Config[int]{Rate: 1000, Burst: 10})
		require.NoError(t, err)
		batches, err := buffer.Stage(buffer.Config[int]{MaxWeight: 10, Weight: itself, Name: "batches"}, nil)
		require.NoError(t, err)
		var out sink
		c, err := compose.Start(rt, compose.Pipe2(limit, batches), out.put)
		require.NoError(t, err)
		ctx := context.Background()
		for _, v := range []int{4, -2, 6, 3, -7} {
			require.NoError(t, c.Post(ctx, v), "the rate stage takes %d", v)
		}
		c.Close()
		err = c.Wait(ctx)
		assert.ErrorIs(t, err, buffer.ErrWeight)
		assert.ErrorContains(t, err, "batches")
		assert.ErrorContains(t, err, "refused 2 items")
		assert.ErrorContains(t, err, "weight must not be negative, got -2", "the first refusal is kept")
		assert.Equal(t, [][]int{{4, 6}, {3}}, out.got())

		st, err := c.Status(ctx)
		require.NoError(t, err)
		require.Len(t, st.Agents, 2)
		assert.Equal(t, 5, st.Agents[0].Done, "the rate stage passed every item on")
		detail := st.Agents[1].Detail.(buffer.Status)
		assert.Equal(t, 3, detail.Done)
		assert.Equal(t, 2, detail.Flushed)
		assert.Equal(t, 10, detail.MaxWeight)
	})
}

func TestAChainHeadedByAStageWithWeightsRefusesANegativeWeight(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		batches, err := buffer.Stage(buffer.Config[int]{MaxWeight: 10, Weight: itself}, nil)
		require.NoError(t, err)
		var out sink
		c, err := compose.Start(rt, batches, out.put)
		require.NoError(t, err)
		ctx := context.Background()
		assert.ErrorIs(t, c.Post(ctx, -1), buffer.ErrWeight)
		assert.ErrorIs(t, c.TryPost(-1), buffer.ErrWeight)
		require.NoError(t, c.Post(ctx, 7))
		require.NoError(t, c.Post(ctx, 7))
		c.Close()
		require.NoError(t, c.Wait(ctx), "what Post refused is not counted")
		assert.Equal(t, [][]int{{7}, {7}}, out.got())
	})
}

func TestStageRejectsBadArguments(t *testing.T) {
	_, err := buffer.Stage(buffer.Config[int]{MaxWeight: 5}, nil)
	assert.EqualError(t, err, "buffer: max weight 5 needs a weight function")
	assert.ErrorIs(t, err, buffer.ErrConfig)
	_, err = buffer.Stage(buffer.Config[int]{MaxWeight: -1, Weight: itself}, nil)
	assert.EqualError(t, err, "buffer: max weight must not be negative, got -1")
	assert.ErrorIs(t, err, buffer.ErrConfig)
	_, err = buffer.Stage(buffer.Config[int]{Weight: itself}, nil)
	assert.EqualError(t, err, "buffer: size must be at least 1, got 0, unless max weight is set")
	assert.ErrorIs(t, err, buffer.ErrConfig)
	_, err = buffer.Stage(buffer.Config[int]{Size: 1}, nil)
	assert.NoError(t, err, "a nil flush writes nothing")
}

func TestNewRejectsABadWeightConfig(t *testing.T) {
	rt := agenttest.Runtime(t)
	for _, c := range []struct {
		cfg  buffer.Config[int]
		want string
	}{
		{buffer.Config[int]{MaxWeight: 5}, "buffer: max weight 5 needs a weight function"},
		{buffer.Config[int]{Size: 2, MaxWeight: -1, Weight: itself}, "buffer: max weight must not be negative, got -1"},
		{buffer.Config[int]{Weight: itself}, "buffer: size must be at least 1, got 0, unless max weight is set"},
	} {
		_, err := buffer.New(rt, c.cfg, nil, nil)
		assert.EqualError(t, err, c.want)
		assert.ErrorIs(t, err, buffer.ErrConfig)
	}
	_, err := buffer.New(nil, buffer.Config[int]{MaxWeight: 5, Weight: itself}, nil, nil)
	assert.EqualError(t, err, "buffer: runtime must not be nil")
	assert.ErrorIs(t, err, buffer.ErrConfig)
}

func TestANegativeWeightCountsAsNothing(t *testing.T) {
	got, s := cuts(t, byWeight(t, buffer.Config[int]{MaxWeight: 10}),
		weighed(w(1, 8), w(2, -5), w(3, 7)), // 3 is too heavy for 8 and nothing
		weighed(w(4, -1), w(5, 3)),
	)
	assert.Equal(t, [][]int{{1, 2}, {3, 4, 5}}, got)
	assert.Equal(t, 0, s.Status().Weight)
	assert.Equal(t, 0, s.Status().Pending)
}
