package compose_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// sleeper is parallel work that takes d, in the bubble's virtual time,
// after waiting for release when it is not nil, or for its context to end.
func sleeper(d time.Duration, release chan struct{}) parallel.Work[int, int] {
	return func(ctx context.Context, v int) (int, error) {
		if release != nil {
			select {
			case <-release:
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}
		time.Sleep(d)
		return v, nil
	}
}

// stagesTaking returns parallel stages whose work takes each of ds.
func stagesTaking(t *testing.T, release chan struct{}, ds ...time.Duration) []agent.Stage[int, int] {
	t.Helper()
	var out []agent.Stage[int, int]
	for _, d := range ds {
		s, err := parallel.Stage(parallel.Config{Limit: 1, MaxBatch: 1, Unordered: true}, sleeper(d, release))
		require.NoError(t, err)
		out = append(out, s)
	}
	return out
}

// limits returns the limit of each parallel or adaptive stage of c.
func limits(t *testing.T, c agent.Handle[int, compose.Status]) []int {
	t.Helper()
	st, err := c.Status(context.Background())
	require.NoError(t, err)
	var out []int
	for _, s := range st.Agents {
		switch d := s.Detail.(type) {
		case parallel.Status:
			out = append(out, d.Limit)
		case adaptive.Status:
			out = append(out, d.Limit)
		}
	}
	return out
}

// sum adds xs up.
func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func TestWithWorkersRefusesWhatItCannotShare(t *testing.T) {
	rt := agenttest.Runtime(t)
	s := stagesTaking(t, nil, 0, 0, 0)
	three := compose.Pipe3(s[0], s[1], s[2])
	r, err := rate.Stage(rate.Config[int]{Rate: 10, Burst: 1})
	require.NoError(t, err)
	b, err := buffer.Stage(buffer.Config[int]{Size: 2}, nil)
	require.NoError(t, err)
	for _, c := range []struct {
		stage agent.Stage[int, int]
		opts  []compose.Option
		want  string
	}{
		{three, []compose.Option{compose.WithWorkers(2)}, "compose: workers must be at least the chain's 3 stages that share them, got 2"},
		{three, []compose.Option{compose.WithWorkers(-1)}, "compose: workers must be at least the chain's 3 stages that share them, got -1"},
		{three, []compose.Option{compose.WithWorkers(3), compose.WithWorkersPeriod(-time.Second)}, "compose: workers period must not be negative, got -1s"},
		{three, []compose.Option{compose.WithWorkersPeriod(time.Second)}, "compose: a workers period needs WithWorkers"},
	} {
		c2, err := compose.Start(rt, c.stage, nil, c.opts...)
		assert.Nil(t, c2)
		assert.EqualError(t, err, c.want)
		assert.ErrorIs(t, err, compose.ErrConfig)
	}
	c, err := compose.Start(rt, compose.Pipe2(r, b), nil, compose.WithWorkers(4))
	assert.Nil(t, c)
	assert.EqualError(t, err, "compose: workers need a stage that shares them, and the chain has none")
}

func TestSharedWorkersStartEvenlyAndFollowTheSlowStage(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		s := stagesTaking(t, nil, time.Millisecond, 20*time.Millisecond, 2*time.Millisecond)
		var got int
		c, err := compose.Start(rt, compose.Pipe3(s[0], s[1], s[2]), func(int) { got++ }, compose.WithWorkers(10))
		require.NoError(t, err)
		synctest.Wait()
		assert.Equal(t, []int{4, 3, 3}, limits(t, c), "an even split to start")

		const n = 2000
		go func() {
			for i := range n {
				if c.Post(context.Background(), i) != nil {
					return
				}
			}
			c.Close()
		}()
		time.Sleep(time.Second)
		shares := limits(t, c)
		assert.Equal(t, 10, sum(shares))
		assert.GreaterOrEqual(t, shares[1], 7, "the slow stage has most of the workers: %v", shares)
		require.NoError(t, c.Wait(context.Background()))
		assert.Equal(t, n, got)
	})
}

func TestAWorkersPeriodIsHonoured(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		s := stagesTaking(t, nil, time.Millisecond, 20*time.Millisecond)
		c, err := compose.Start(rt, compose.Pipe2(s[0], s[1]), nil, compose.WithWorkers(6), compose.WithWorkersPeriod(time.Second))
		require.NoError(t, err)
		go func() {
			for i := range 1000 {
				if c.Post(context.Background(), i) != nil {
					return
				}
			}
			c.Close()
		}()
		time.Sleep(1500 * time.Millisecond)
		assert.Equal(t, []int{3, 3}, limits(t, c), "one reallocation, the first, which only reads the counters")
		time.Sleep(time.Second)
		assert.Equal(t, []int{1, 5}, limits(t, c), "then the slow stage takes all but one")
		require.NoError(t, c.Wait(context.Background()))
	})
}

func TestSharedWorkersSetAnAdaptiveStagesLimit(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		p, err := parallel.Stage(parallel.Config{Limit: 1, MaxBatch: 1}, sleeper(time.Millisecond, nil))
		require.NoError(t, err)
		a, err := adaptive.Stage(adaptive.Config{Max: 16, Controller: fixed{}}, sleeper(30*time.Millisecond, nil))
		require.NoError(t, err)
		c, err := compose.Start(rt, compose.Pipe2(p, a), nil, compose.WithWorkers(8))
		require.NoError(t, err)
		synctest.Wait()
		assert.Equal(t, []int{4, 4}, limits(t, c))
		go func() {
			for i := range 500 {
				if c.Post(context.Background(), i) != nil {
					return
				}
			}
			c.Close()
		}()
		time.Sleep(time.Second)
		assert.Equal(t, []int{1, 7}, limits(t, c))
		require.NoError(t, c.Wait(context.Background()))
	})
}

func TestStopEndsTheSharingOfWorkers(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		release := make(chan struct{})
		s := stagesTaking(t, release, 0, 0, 0)
		c, err := compose.Start(rt, compose.Pipe3(s[0], s[1], s[2]), nil, compose.WithWorkers(3), compose.WithWorkersPeriod(time.Millisecond))
		require.NoError(t, err)
		postRange(t, c, 10)
		time.Sleep(10 * time.Millisecond)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		require.NoError(t, c.Stop(ctx))
		assert.ErrorIs(t, c.Wait(context.Background()), agent.ErrStopped)
		// The bubble ends only once every goroutine in it has returned:
		// the one that shared the workers too.
	})
}

// A chain that shares workers leaves no goroutine behind once Wait has
// returned, on the system clock as in a bubble.
func TestAChainThatSharesWorkersLeavesNoGoroutineBehind(t *testing.T) {
	rt := agenttest.Runtime(t)
	before := goleak.IgnoreCurrent()
	for range 20 {
		s := stagesTaking(t, nil, 0, 0)
		c, err := compose.Start(rt, compose.Pipe2(s[0], s[1]), nil, compose.WithWorkers(2), compose.WithWorkersPeriod(time.Microsecond))
		require.NoError(t, err)
		postRange(t, c, 100)
		c.Close()
		require.NoError(t, c.Wait(context.Background()))
	}
	assert.NoError(t, goleak.Find(before, goleak.IgnoreAnyFunction("github.com/evolvekit/evolve/agent.(*dispatcher).loop")))
}

// fixed is a controller that keeps the limit where the budget sets it.
type fixed struct{}

func (fixed) Name() string { return "fixed" }

func (f fixed) Observe(s adaptive.Sample, _ *rand.Rand) (adaptive.Controller, int) {
	return f, s.Limit
}

func (fixed) View() adaptive.View { return adaptive.View{Phase: "fixed"} }

func TestSharedWorkersSeeTheBacklogWaitingInARateStage(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		r, err := rate.Stage(rate.Config[int]{Rate: 10000, Burst: 10})
		require.NoError(t, err)
		s := stagesTaking(t, nil, 30*time.Millisecond, time.Millisecond)
		var got int
		c, err := compose.Start(rt, compose.Pipe3(r, s[0], s[1]), func(int) { got++ }, compose.WithWorkers(8))
		require.NoError(t, err)
		const n = 1000
		go func() {
			for i := range n {
				if c.Post(context.Background(), i) != nil {
					return
				}
			}
			c.Close()
		}()
		time.Sleep(time.Second)
		shares := limits(t, c)
		assert.Equal(t, 8, sum(shares))
		assert.GreaterOrEqual(t, shares[0], 6, "the slow stage, whose backlog waits in the rate stage, has most of the workers: %v", shares)
		require.NoError(t, c.Wait(context.Background()))
		assert.Equal(t, n, got)
	})
}
