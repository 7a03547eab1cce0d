package compose_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/evolvekit/evolve/spawn"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// stages returns a rate -> parallel -> buffer plan over ints: work doubles
// each item after a delay that depends on it, so later items often finish
// first.
func stages(t *testing.T, pcfg parallel.Config, bcfg buffer.Config[int]) agent.Stage[int, []int] {
	t.Helper()
	limit, err := rate.Stage(rate.Config[int]{Rate: 1e6, Burst: 100})
	require.NoError(t, err)
	work, err := parallel.Stage(pcfg, func(ctx context.Context, x int) (int, error) {
		time.Sleep(time.Duration(1+(x*7)%10) * time.Millisecond)
		return 2 * x, nil
	})
	require.NoError(t, err)
	batches, err := buffer.Stage(bcfg, nil)
	require.NoError(t, err)
	return compose.Pipe3(limit, work, batches)
}

func postRange(t *testing.T, c agent.Handle[int, compose.Status], n int) {
	t.Helper()
	for i := range n {
		require.NoError(t, c.Post(context.Background(), i))
	}
}

func flatten(batches [][]int) []int {
	var out []int
	for _, b := range batches {
		out = append(out, b...)
	}
	return out
}

func doubles(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = 2 * i
	}
	return out
}

func TestAnOrderedChainDeliversEveryItemOnceInOrder(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		var got [][]int
		c, err := compose.Start(rt, stages(t, parallel.Config{Limit: 4, Queue: 8}, buffer.Config[int]{Size: 7, Queue: 14}),
			func(b []int) { got = append(got, b) })
		require.NoError(t, err)
		postRange(t, c, 500)
		c.Close()
		require.NoError(t, c.Wait(context.Background()))
		require.Equal(t, doubles(500), flatten(got))
		for _, b := range got[:len(got)-1] {
			require.Len(t, b, 7)
		}
	})
}

func TestAnUnorderedChainDeliversEveryItemOnce(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		var got [][]int
		c, err := compose.Start(rt, stages(t, parallel.Config{Limit: 8, Unordered: true}, buffer.Config[int]{Size: 5}),
			func(b []int) { got = append(got, b) })
		require.NoError(t, err)
		postRange(t, c, 300)
		c.Close()
		require.NoError(t, c.Wait(context.Background()))
		require.ElementsMatch(t, doubles(300), flatten(got))
	})
}

func TestTapSeesEveryValueInOrderBeforeItIsPassedOn(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		limit, err := rate.Stage(rate.Config[int]{Rate: 1000, Burst: 1})
		require.NoError(t, err)
		var seen, got []int
		c, err := compose.Start(rt, compose.Tap(limit, func(v int) { seen = append(seen, v) }),
			func(v int) { got = append(got, v) })
		require.NoError(t, err)
		postRange(t, c, 20)
		c.Close()
		require.NoError(t, c.Wait(context.Background()))
		require.Equal(t, got, seen)
		require.Len(t, seen, 20)
	})
}

// gated returns a one-stage plan whose work blocks until release is closed,
// so the test controls when room appears.
func gated(t *testing.T, release <-chan struct{}, queue int) agent.Stage[int, int] {
	t.Helper()
	work, err := parallel.Stage(parallel.Config{Limit: 1, Queue: queue}, func(ctx context.Context, x int) (int, error) {
		<-release
		return x, nil
	})
	require.NoError(t, err)
	return work
}

func TestOverflowPolicies(t *testing.T) {
	for _, tc := range []struct {
		overflow compose.Overflow
		want     []int // values out of 0..9 that reach the sink
		postErr  error // what the posts beyond the room return
		dropped  int   // by Post
	}{
		// One item in flight, three queued: four fit.
		{compose.DropNewest, []int{0, 1, 2, 3}, nil, 6},
		{compose.Fail, []int{0, 1, 2, 3}, agent.ErrFull, 0},
		// And the overflow stage in front holds the newest three.
		{compose.DropOldest, []int{0, 1, 2, 3, 7, 8, 9}, nil, 0},
	} {
		t.Run(tc.overflow.String(), func(t *testing.T) {
			agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
				release := make(chan struct{})
				var got []int
				c, err := compose.Start(rt, gated(t, release, 3), func(v int) { got = append(got, v) },
					compose.WithOverflow(tc.overflow))
				require.NoError(t, err)
				for i := range 10 {
					err := c.Post(context.Background(), i)
					if i >= 4 && tc.postErr != nil {
						require.ErrorIs(t, err, tc.postErr)
					} else {
						require.NoError(t, err)
					}
					time.Sleep(time.Millisecond) // let the chain take it in
				}
				st, err := c.Status(context.Background())
				require.NoError(t, err)
				if tc.overflow != compose.DropOldest {
					assert.Equal(t, tc.dropped, st.Dropped)
				}
				if tc.overflow == compose.DropOldest {
					require.Len(t, st.Agents, 2)
					assert.Equal(t, "overflow", st.Agents[0].Name)
					assert.Equal(t, agent.Load{Queued: 3, Done: 4, Demand: 0}, st.Agents[0].Load)
					assert.Equal(t, 3, st.Dropped, "the overflow stage's drops are the chain's")
				}
				close(release)
				c.Close()
				require.NoError(t, c.Wait(context.Background()))
				require.Equal(t, tc.want, got)
			})
		})
	}
}

func TestBlockingPostHonoursItsContext(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		release := make(chan struct{})
		c, err := compose.Start(rt, gated(t, release, 1), nil)
		require.NoError(t, err)
		require.NoError(t, c.Post(context.Background(), 1)) // runs
		time.Sleep(time.Millisecond)
		require.NoError(t, c.Post(context.Background(), 2)) // queued
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		require.ErrorIs(t, c.Post(ctx, 3), context.DeadlineExceeded)
		require.ErrorIs(t, c.TryPost(3), agent.ErrFull)
		close(release)
		c.Close()
		require.ErrorIs(t, c.Post(context.Background(), 4), agent.ErrClosed)
		require.NoError(t, c.Wait(context.Background()))
	})
}

func TestWaitJoinsTheErrorsOfEveryStageAndDeliversTheRest(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		boom := errors.New("boom")
		work, err := parallel.Stage(parallel.Config{Name: "work", Limit: 2}, func(_ context.Context, x int) (int, error) {
			if x%10 == 3 {
				return 0, boom
			}
			return x, nil
		})
		require.NoError(t, err)
		// The rate stage after it refuses odd values: their cost is above its burst.
		limit, err := rate.Stage(rate.Config[int]{Name: "limit", Rate: 1e6, Burst: 1, Cost: func(x int) float64 { return float64(1 + x%2) }})
		require.NoError(t, err)
		var got []int
		c, err := compose.Start(rt, compose.Pipe2(work, limit), func(v int) { got = append(got, v) })
		require.NoError(t, err)
		postRange(t, c, 40)
		c.Close()
		err = c.Wait(context.Background())
		require.ErrorIs(t, err, boom)
		require.ErrorIs(t, err, rate.ErrCost)
		assert.Contains(t, err.Error(), "work: boom")
		assert.Contains(t, err.Error(), "refused 16 items") // odd values, 13, 23, 33 and 3 failed
		want := []int{}
		for i := 0; i < 40; i += 2 {
			want = append(want, i)
		}
		require.Equal(t, want, got)
	})
}

func TestPostReturnsTheFirstStagesRefusal(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		limit, err := rate.Stage(rate.Config[int]{Rate: 1, Burst: 2, Cost: func(x int) float64 { return float64(x) }})
		require.NoError(t, err)
		c, err := compose.Start(rt, limit, nil)
		require.NoError(t, err)
		require.ErrorIs(t, c.Post(context.Background(), 3), rate.ErrCost)
		require.ErrorIs(t, c.TryPost(3), rate.ErrCost)
		c.Close()
		require.NoError(t, c.Wait(context.Background()))
	})
}

func TestASinkPanicLosesOnlyItsValue(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		limit, err := rate.Stage(rate.Config[int]{Rate: 1e6, Burst: 1})
		require.NoError(t, err)
		var got []int
		c, err := compose.Start(rt, limit, func(v int) {
			if v == 2 {
				panic("sink")
			}
			got = append(got, v)
		})
		require.NoError(t, err)
		postRange(t, c, 5)
		c.Close()
		var pe *agent.PanicError
		require.ErrorAs(t, c.Wait(context.Background()), &pe)
		require.Equal(t, []int{0, 1, 3, 4}, got)
	})
}

// broken is a stage whose evolve panics on the item 13 and passes every
// other item on.
func broken() agent.Stage[int, int] {
	type state struct{ demand int }
	evolve := func(s state, m agent.Msg) (state, []agent.Effect) {
		switch m := m.(type) {
		case agent.Pull:
			s.demand += m.N
			return s, nil
		case agent.Input[int]:
			for _, v := range m.Items {
				if v == 13 {
					panic("thirteen")
				}
			}
			s.demand -= len(m.Items)
			return s, []agent.Effect{agent.Emit[int]{Values: m.Items}, agent.Demand{N: len(m.Items)}}
		case agent.Close:
			return s, []agent.Effect{agent.Finish{}}
		}
		return s, []agent.Effect{agent.Unhandled{}}
	}
	s, err := spawn.Stage[int, struct{}](spawn.Spec[state, struct{}, struct{}, int]{Name: "broken", Evolve: evolve, Queue: 4})
	if err != nil {
		panic(err)
	}
	return s
}

func TestABrokenStageStillLetsTheChainDrainAndReportsIt(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		limit, err := rate.Stage(rate.Config[int]{Rate: 1e6, Burst: 1, Queue: 4})
		require.NoError(t, err)
		after, err := rate.Stage(rate.Config[int]{Name: "after", Rate: 1e6, Burst: 1})
		require.NoError(t, err)
		var got []int
		c, err := compose.Start(rt, compose.Pipe3(limit, broken(), after),
			func(v int) { got = append(got, v) })
		require.NoError(t, err)
		postRange(t, c, 100) // more than every queue holds: the stage before must drain
		c.Close()
		err = c.Wait(context.Background())
		var pe *agent.PanicError
		require.ErrorAs(t, err, &pe)
		assert.Contains(t, err.Error(), "broken: panic: thirteen")
		require.LessOrEqual(t, len(got), 13, "nothing from 13 on passed the broken stage")
		for i, v := range got {
			require.Equal(t, i, v, "what passed it came in order")
		}
	})
}

func TestStatusAndLogStatusCoverEveryStage(t *testing.T) {
	var logs bytes.Buffer
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		c, err := compose.Start(rt, stages(t, parallel.Config{Limit: 2}, buffer.Config[int]{Size: 3}), nil, compose.WithName("words"))
		require.NoError(t, err)
		postRange(t, c, 5)
		time.Sleep(time.Second)
		st, err := c.Status(context.Background())
		require.NoError(t, err)
		require.Equal(t, "words", st.Name)
		require.Len(t, st.Agents, 3)
		assert.Equal(t, 5, st.Agents[0].Done, "the rate stage passed 5 on")
		assert.Equal(t, 5, st.Agents[1].Done, "the parallel stage worked on 5")
		assert.Equal(t, 3, st.Agents[2].Done, "the buffer stage flushed one batch of 3")
		assert.Equal(t, 2, st.Agents[2].Queued, "and holds 2")
		assert.Equal(t, 1, st.Agents[2].Detail.(buffer.Status).Flushed)
		assert.Equal(t, 2, st.Queued, "the chain's Load adds up its stages'")
		assert.Equal(t, 3, st.Done, "what came out of the last stage")
		assert.True(t, st.Demand.IsUnbounded(), "the sink's demand is unbounded")

		c.LogStatus()
		_, err = c.Status(context.Background()) // after every stage has logged
		require.NoError(t, err)
		var events []string
		for _, line := range strings.Split(logs.String(), "\n") {
			if strings.Contains(line, `"message":"status"`) {
				events = append(events, line)
			}
		}
		require.Len(t, events, 4, "one event per stage and one for the chain")
		for _, want := range []string{`"agent":"rate"`, `"agent":"parallel"`, `"agent":"buffer"`, `"chain":"words"`} {
			assert.Contains(t, strings.Join(events, "\n"), want)
		}
		c.Close()
		require.NoError(t, c.Wait(context.Background()))
	}, agent.WithLogger(zerolog.New(zerolog.SyncWriter(&logs))))
}

func TestWaitWithoutCloseHonoursItsContext(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		c, err := compose.Start(rt, stages(t, parallel.Config{Limit: 1}, buffer.Config[int]{Size: 2}), nil)
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		require.ErrorIs(t, c.Wait(ctx), context.DeadlineExceeded)
	})
}

func TestStopCancelsRunningWork(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		started, cancelled := make(chan struct{}), make(chan struct{})
		work, err := parallel.Stage(parallel.Config{Limit: 1}, func(ctx context.Context, x int) (int, error) {
			close(started)
			<-ctx.Done()
			close(cancelled)
			return x, ctx.Err()
		})
		require.NoError(t, err)
		c, err := compose.Start(rt, work, nil)
		require.NoError(t, err)
		require.NoError(t, c.Post(context.Background(), 1))
		<-started
		require.NoError(t, c.Stop(context.Background()))
		<-cancelled
		require.ErrorIs(t, c.Wait(context.Background()), agent.ErrStopped)
		require.ErrorIs(t, c.Post(context.Background(), 2), agent.ErrClosed)
	})
}

func TestStartRefusesWhatCannotRun(t *testing.T) {
	rt := agenttest.Runtime(t)
	limit, err := rate.Stage(rate.Config[int]{Rate: 1, Burst: 1})
	require.NoError(t, err)
	_, err = compose.Start(nil, limit, nil)
	assert.EqualError(t, err, "compose: runtime must not be nil")
	assert.ErrorIs(t, err, compose.ErrConfig)
	_, err = compose.Start(rt, agent.Stage[int, int]{}, nil)
	assert.ErrorContains(t, err, "compose: the zero Stage cannot start")
	assert.ErrorIs(t, err, compose.ErrConfig)
	_, err = compose.Start(rt, compose.Pipe2(limit, agent.Stage[int, int]{}), nil)
	assert.ErrorIs(t, err, compose.ErrConfig, "a zero Stage linked is a zero Stage")
	_, err = compose.Start(rt, limit, nil, compose.WithOverflow(7))
	assert.EqualError(t, err, "compose: overflow must be Block, DropNewest, DropOldest or Fail, got Overflow(7)")
	assert.ErrorIs(t, err, compose.ErrConfig)
	require.NoError(t, rt.Shutdown(context.Background()))
	_, err = compose.Start(rt, compose.Pipe2(limit, limit), nil)
	assert.ErrorIs(t, err, agent.ErrClosed)
}

func TestAStopFromATapOrTheSinkDoesNotStall(t *testing.T) {
	for _, where := range []string{"tap", "sink"} {
		t.Run(where, func(t *testing.T) {
			agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
				var c agent.Handle[int, compose.Status]
				stopped := make(chan time.Duration, 1)
				stop := func(v int) {
					if v != 3 {
						return
					}
					start := time.Now()
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					if err := c.Stop(ctx); err != nil {
						t.Error(err)
					}
					stopped <- time.Since(start)
				}
				limit, err := rate.Stage(rate.Config[int]{Rate: 1000, Burst: 1})
				require.NoError(t, err)
				work, err := parallel.Stage(parallel.Config{Limit: 2}, func(_ context.Context, x int) (int, error) { return x, nil })
				require.NoError(t, err)
				sink := func(int) {}
				if where == "tap" {
					limit = compose.Tap(limit, stop)
				} else {
					sink = stop
				}
				c, err = compose.Start(rt, compose.Pipe2(limit, work), sink)
				require.NoError(t, err)
				postRange(t, c, 10)
				assert.Zero(t, <-stopped, "Stop returned at once, in virtual time")
				require.ErrorIs(t, c.Wait(context.Background()), agent.ErrStopped)
			})
		})
	}
}
