package agenttest_test

import (
	"bytes"
	"context"
	"github.com/evolvekit/evolve/internal/testing/logline"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/spawn"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// sleeper is the state of an agent whose work sleeps for each item's
// duration and emits it.
type sleeper struct {
	next   uint64
	load   agent.Load
	closed bool
}

func sleeperEvolve(s sleeper, m agent.Msg) (sleeper, []agent.Effect) {
	var fx []agent.Effect
	switch m := m.(type) {
	case agent.Pull:
	case agent.Input[time.Duration]:
		for _, d := range m.Items {
			fx = append(fx, agent.Start[time.Duration]{ID: s.next, Work: d})
			s.next++
		}
		s.load.InFlight += len(m.Items)
		fx = append(fx, agent.Demand{N: len(m.Items)})
	case agent.Done[time.Duration]:
		s.load.InFlight--
		s.load.Done++
		fx = append(fx, agent.Emit[time.Duration]{Values: []time.Duration{m.Result}})
	case agent.Close:
		s.closed = true
	case agent.Query:
		return s, []agent.Effect{agent.Reply[agent.Load]{To: m.ID, Value: s.load}}
	default:
		return s, []agent.Effect{agent.Unhandled{}}
	}
	if s.closed && s.load.InFlight == 0 {
		fx = append(fx, agent.Finish{})
	}
	return s, fx
}

func startSleeper(t *testing.T, rt *agent.Runtime, sink func(time.Duration)) agent.Handle[time.Duration, agent.Load] {
	t.Helper()
	h, err := spawn.New[time.Duration, agent.Load](rt, spawn.Spec[sleeper, time.Duration, time.Duration, time.Duration]{
		Name:   "sleeper",
		Evolve: sleeperEvolve,
		Queue:  4,
		Work: func(_ context.Context, d time.Duration) (time.Duration, error) {
			time.Sleep(d)
			return d, nil
		},
	}, sink)
	require.NoError(t, err)
	return h
}

func TestInBubbleRunsTheWorkInVirtualTime(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		var got []time.Duration
		h := startSleeper(t, rt, func(d time.Duration) { got = append(got, d) })
		ctx := context.Background()
		start := time.Now()
		for _, d := range []time.Duration{3 * time.Hour, time.Hour, 2 * time.Hour} {
			require.NoError(t, h.Post(ctx, d))
		}
		h.Close()
		require.NoError(t, h.Wait(ctx))
		assert.Equal(t, 3*time.Hour, time.Since(start), "the three ran at once, in virtual time")
		assert.Equal(t, []time.Duration{time.Hour, 2 * time.Hour, 3 * time.Hour}, got)
		st, err := h.Status(ctx)
		require.NoError(t, err)
		assert.Equal(t, agent.Load{Done: 3}, st)
	})
}

func TestRuntimeIsShutDownWhenTheTestEnds(t *testing.T) {
	var h agent.Handle[time.Duration, agent.Load]
	t.Run("inner", func(t *testing.T) {
		h = startSleeper(t, agenttest.Runtime(t), nil)
		require.NoError(t, h.Post(context.Background(), time.Millisecond))
	})
	assert.ErrorIs(t, h.TryPost(time.Millisecond), agent.ErrClosed, "the runtime was shut down")
	assert.ErrorIs(t, h.Wait(context.Background()), agent.ErrStopped)
}

func TestLastLogReadsTheStatusEvent(t *testing.T) {
	var logs bytes.Buffer
	rt := agenttest.Runtime(t, agent.WithLogger(zerolog.New(&logs)))
	h := startSleeper(t, rt, nil)
	h.LogStatus()
	_, err := h.Status(context.Background()) // answered after the event was written
	require.NoError(t, err)
	ev := logline.Last(t, logs.Bytes())
	assert.Equal(t, "info", ev.Level)
	assert.Equal(t, "sleeper", ev.Agent)
	assert.NotEmpty(t, ev.PID)
	assert.Equal(t, "status", ev.Message)
	assert.Equal(t, map[string]any{"queued": 0.0, "in_flight": 0.0, "done": 0.0, "failed": 0.0, "demand": 0.0}, ev.Status)
}
