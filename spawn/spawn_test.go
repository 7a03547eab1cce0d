package spawn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/spawn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func dedupeSpec() spawn.Spec[dedupe, struct{}, struct{}, string] {
	return spawn.Spec[dedupe, struct{}, struct{}, string]{Name: "dedupe", Evolve: dedupeEvolve, Queue: 4}
}

func TestNewAndStageRefuseWhatCannotRun(t *testing.T) {
	rt := agenttest.Runtime(t)
	_, err := spawn.New[string, dedupeStatus](nil, dedupeSpec(), nil)
	assert.EqualError(t, err, "spawn: runtime must not be nil")
	assert.ErrorIs(t, err, spawn.ErrConfig)
	_, err = spawn.New[string, dedupeStatus](rt, spawn.Spec[dedupe, struct{}, struct{}, string]{}, nil)
	assert.EqualError(t, err, "spawn: evolve must not be nil")
	assert.ErrorIs(t, err, spawn.ErrConfig)
	_, err = spawn.Stage[string, dedupeStatus](spawn.Spec[dedupe, struct{}, struct{}, string]{Evolve: dedupeEvolve, Queue: -1})
	assert.EqualError(t, err, "spawn: queue must not be negative, got -1")
	assert.ErrorIs(t, err, spawn.ErrConfig)
	require.NoError(t, rt.Shutdown(context.Background()))
	_, err = spawn.New[string, dedupeStatus](rt, dedupeSpec(), nil)
	assert.ErrorIs(t, err, agent.ErrClosed)
}

func TestAnAgentOfYourOwnRunsAloneAndInAChain(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		ctx := context.Background()
		st, err := spawn.Stage[string, dedupeStatus](dedupeSpec())
		require.NoError(t, err)
		var got []string
		c, err := compose.Start(rt, compose.Pipe2(st, upper()), func(w string) { got = append(got, w) })
		require.NoError(t, err)
		for _, w := range strings.Fields("a b a c b d a") {
			require.NoError(t, c.Post(ctx, w))
		}
		c.Close()
		require.NoError(t, c.Wait(ctx))
		assert.Equal(t, []string{"A", "B", "C", "D"}, got)
		cs, err := c.Status(ctx)
		require.NoError(t, err)
		assert.Equal(t, 4, cs.Agents[0].Done, "the stage's Load, read without knowing its type")
		assert.Equal(t, 3, cs.Agents[0].Detail.(dedupeStatus).Dropped)
	})
}

// upper is a stage of a second kind of agent: it upper-cases what it is
// given, as its demand allows.
func upper() agent.Stage[string, string] {
	type state struct {
		demand  int
		waiting []string
	}
	evolve := func(s state, m agent.Msg) (state, []agent.Effect) {
		switch m := m.(type) {
		case agent.Pull:
			s.demand += m.N
		case agent.Input[string]:
			for _, w := range m.Items {
				s.waiting = append(s.waiting[:len(s.waiting):len(s.waiting)], strings.ToUpper(w))
			}
		case agent.Close:
			return s, []agent.Effect{agent.Finish{}}
		case agent.Query:
			return s, []agent.Effect{agent.Reply[agent.Load]{To: m.ID, Value: agent.Load{Queued: len(s.waiting)}}}
		default:
			return s, []agent.Effect{agent.Unhandled{}}
		}
		n := min(s.demand, len(s.waiting))
		if n == 0 {
			return s, nil
		}
		out := s.waiting[:n:n]
		s.waiting, s.demand = s.waiting[n:], s.demand-n
		return s, []agent.Effect{agent.Emit[string]{Values: out}, agent.Demand{N: n}}
	}
	st, err := spawn.Stage[string, agent.Load](spawn.Spec[state, struct{}, struct{}, string]{Name: "upper", Evolve: evolve})
	if err != nil {
		panic(err)
	}
	return st
}

func TestSetReachesEvolveAndAnUnhandledSetFailsTheAgent(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		ctx := context.Background()
		h, err := spawn.New[string, dedupeStatus](rt, dedupeSpec(), nil)
		require.NoError(t, err)
		require.NoError(t, spawn.Set(h, 7), "Set does not wait for evolve")
		err = h.Wait(ctx)
		assert.ErrorContains(t, err, "agent dedupe: evolve did not handle agent.Set[int]")
		assert.ErrorIs(t, h.Post(ctx, "x"), agent.ErrClosed)
		assert.ErrorIs(t, spawn.Set(h, 8), agent.ErrClosed)
	})
}

func TestWorkRunsOnTheRuntimesGoroutines(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		type state struct {
			next   uint64
			closed bool
			inFly  int
		}
		evolve := func(s state, m agent.Msg) (state, []agent.Effect) {
			switch m := m.(type) {
			case agent.Pull:
				return s, nil
			case agent.Input[int]:
				var fx []agent.Effect
				for _, v := range m.Items {
					s.next++
					s.inFly++
					fx = append(fx, agent.Start[int]{ID: s.next, Work: v}, agent.Demand{N: 1})
				}
				return s, fx
			case agent.Done[int]:
				s.inFly--
				fx := []agent.Effect{agent.Emit[int]{Values: []int{m.Result}}}
				if s.closed && s.inFly == 0 {
					fx = append(fx, agent.Finish{})
				}
				return s, fx
			case agent.Close:
				s.closed = true
				if s.inFly == 0 {
					return s, []agent.Effect{agent.Finish{}}
				}
				return s, nil
			case agent.Query:
				return s, []agent.Effect{agent.Reply[int]{To: m.ID, Value: s.inFly}}
			}
			return s, []agent.Effect{agent.Unhandled{}}
		}
		sum := 0
		h, err := spawn.New[int, int](rt, spawn.Spec[state, int, int, int]{
			Evolve: evolve,
			Work:   func(_ context.Context, v int) (int, error) { return v * v, nil },
		}, func(v int) { sum += v })
		require.NoError(t, err)
		assert.Equal(t, "agent", h.Name(), "the default name")
		for v := 1; v <= 4; v++ {
			require.NoError(t, h.Post(context.Background(), v))
		}
		h.Close()
		require.NoError(t, h.Wait(context.Background()))
		assert.Equal(t, 30, sum)
	})
}
