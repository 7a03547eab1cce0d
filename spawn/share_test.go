package spawn_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/sim"
	"github.com/evolvekit/evolve/spawn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pool is a kind of agent of its own that runs work on its items, at most
// limit at once, and passes the results on in the order they finish.
type pool struct {
	limit, busy, done, demand int
	next                      uint64
	waiting, results          []int
	closed                    bool
}

// poolStatus is what a pool answers a Query with.
type poolStatus struct {
	agent.Load
	Limit, Busy int
}

// poolLimit is the setting that changes a pool's limit.
type poolLimit int

func poolEvolve(s pool, m agent.Msg) (pool, []agent.Effect) {
	var fx []agent.Effect
	switch m := m.(type) {
	case agent.Pull:
		s.demand += m.N
	case agent.Input[int]:
		s.waiting = append(s.waiting[:len(s.waiting):len(s.waiting)], m.Items...)
	case agent.Done[int]:
		s.busy, s.done = s.busy-1, s.done+1
		s.results = append(s.results[:len(s.results):len(s.results)], m.Result)
	case agent.Set[poolLimit]:
		s.limit = int(m.Value)
	case agent.Close:
		s.closed = true
	case agent.Query:
		st := poolStatus{Load: agent.Load{Queued: len(s.waiting), InFlight: s.busy, Done: s.done, Demand: agent.Credit(s.demand)}, Limit: s.limit, Busy: s.busy}
		return s, []agent.Effect{agent.Reply[poolStatus]{To: m.ID, Value: st}}
	default:
		return s, []agent.Effect{agent.Unhandled{}}
	}
	for ; s.busy < s.limit && len(s.waiting) > 0; s.waiting = s.waiting[1:] {
		s.next++
		s.busy++
		fx = append(fx, agent.Start[int]{ID: s.next, Work: s.waiting[0]}, agent.Demand{N: 1})
	}
	if n := min(s.demand, len(s.results)); n > 0 {
		fx = append(fx, agent.Emit[int]{Values: s.results[:n:n]})
		s.results, s.demand = s.results[n:], s.demand-n
	}
	if s.closed && len(s.waiting)+s.busy+len(s.results) == 0 {
		fx = append(fx, agent.Finish{})
		s.closed = false
	}
	return s, fx
}

// poolWorkers says what a pool's status tells of its workers.
func poolWorkers(status any) spawn.Workers {
	st := status.(poolStatus)
	return spawn.Workers{Queued: st.Queued, Busy: st.Busy, Done: st.Done, Limit: st.Limit}
}

// poolSetLimit is the message that sets a pool's limit to n.
func poolSetLimit(n int) agent.Msg { return agent.Set[poolLimit]{Value: poolLimit(n)} }

// poolStage is a pool, limit 1, whose work on an item takes d.
func poolStage(t *testing.T, d time.Duration) agent.Stage[int, int] {
	t.Helper()
	s, err := spawn.Stage[int, poolStatus](spawn.Spec[pool, int, int, int]{
		Name: "pool", State: pool{limit: 1}, Evolve: poolEvolve, Queue: 8, Workers: poolWorkers, Limit: poolSetLimit,
		Work: func(_ context.Context, v int) (int, error) {
			time.Sleep(d)
			return v, nil
		},
	})
	require.NoError(t, err)
	return s
}

func TestAnAgentOfYourOwnSharesAChainsWorkers(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		quick, err := parallel.Stage(parallel.Config{Limit: 1, MaxBatch: 1}, func(_ context.Context, v int) (int, error) {
			time.Sleep(time.Millisecond)
			return v, nil
		})
		require.NoError(t, err)
		got := 0
		c, err := compose.Start(rt, compose.Pipe2(poolStage(t, 20*time.Millisecond), quick), func(int) { got++ }, compose.WithWorkers(6))
		require.NoError(t, err)
		limits := func() [2]int {
			st, err := c.Status(context.Background())
			require.NoError(t, err)
			return [2]int{st.Agents[0].Detail.(poolStatus).Limit, st.Agents[1].Detail.(parallel.Status).Limit}
		}
		synctest.Wait()
		assert.Equal(t, [2]int{3, 3}, limits(), "an even split to start, the pool's limit set by its own Set")
		go func() {
			for i := range 500 {
				if c.Post(context.Background(), i) != nil {
					return
				}
			}
			c.Close()
		}()
		time.Sleep(time.Second)
		assert.Equal(t, [2]int{5, 1}, limits(), "the slow pool, read through its Share, takes all but one")
		require.NoError(t, c.Wait(context.Background()))
		assert.Equal(t, 500, got)
	})
}

func TestWorkersAndLimitGoTogether(t *testing.T) {
	for _, spec := range []spawn.Spec[pool, int, int, int]{
		{Evolve: poolEvolve, Workers: poolWorkers},
		{Evolve: poolEvolve, Limit: poolSetLimit},
	} {
		_, err := spawn.Stage[int, poolStatus](spec)
		assert.EqualError(t, err, "spawn: workers and limit go together: a chain shares workers with an agent whose status it reads and whose limit it sets")
		assert.ErrorIs(t, err, spawn.ErrConfig)
	}
}

func TestAStatusWorkersCannotReadReadsAsNothing(t *testing.T) {
	s, err := spawn.Stage[int, poolStatus](spawn.Spec[pool, int, int, int]{
		Evolve: poolEvolve, Workers: func(any) spawn.Workers { panic("unreadable") }, Limit: poolSetLimit,
	})
	require.NoError(t, err)
	res, err := sim.Run(sim.Config{Arrivals: sim.Steady{Rate: 1000}, Duration: 100 * time.Millisecond, Workers: 2},
		sim.Chain[int, int]{Stage: s})
	require.NoError(t, err, "a reading that panics is taken as no reading")
	assert.Positive(t, res.Emitted)
}
