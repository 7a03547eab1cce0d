package cell_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/internal/cell"
	"github.com/evolvekit/evolve/internal/spec"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// frozen is a clock that always reads the same instant and records the
// timers armed on it, and those cancelled, instead of running them.
type frozen struct {
	now       time.Time
	delays    chan time.Duration
	cancelled *atomic.Int32
}

func newFrozen() frozen {
	return frozen{
		now:       time.Date(2030, 5, 1, 12, 0, 0, 0, time.UTC),
		delays:    make(chan time.Duration, 1),
		cancelled: new(atomic.Int32),
	}
}

func (c frozen) Now() time.Time { return c.now }

func (c frozen) AfterFunc(d time.Duration, _ func()) func() bool {
	c.delays <- d
	return func() bool { c.cancelled.Add(1); return true }
}

// lastAt remembers the instant of the last message it saw.
func lastAt(s time.Time, m agent.Msg) (time.Time, []agent.Effect) {
	switch m := m.(type) {
	case agent.Input[int]:
		return m.At, []agent.Effect{agent.Timer{Tag: 1, Delay: time.Duration(m.Items[0])}, agent.Demand{N: 1}}
	case agent.Query:
		return s, []agent.Effect{agent.Reply[time.Time]{To: m.ID, Value: s}}
	}
	return s, nil
}

func TestTheRuntimeStampsAndArmsWithItsClock(t *testing.T) {
	clock := newFrozen()
	rt := agenttest.Runtime(t, agent.WithClock(clock))
	h, err := cell.SpawnForTest[int, time.Time](rt, spec.Spec[time.Time, int, int, int]{Name: "at", Evolve: lastAt, Queue: 1}, nil)
	require.NoError(t, err)
	require.NoError(t, h.Post(context.Background(), 42))
	seen, err := h.Status(context.Background())
	require.NoError(t, err)
	assert.Equal(t, clock.now, seen)
	assert.Equal(t, 42*time.Nanosecond, <-clock.delays)
}

func TestStopDisarmsPendingTimers(t *testing.T) {
	clock := newFrozen()
	rt := agenttest.Runtime(t, agent.WithClock(clock))
	h, err := cell.SpawnForTest[int, time.Time](rt, spec.Spec[time.Time, int, int, int]{Name: "at", Evolve: lastAt, Queue: 1}, nil)
	require.NoError(t, err)
	require.NoError(t, h.Post(context.Background(), int(time.Hour)))
	assert.Equal(t, time.Hour, <-clock.delays)
	assert.Zero(t, clock.cancelled.Load())
	require.NoError(t, h.Stop(context.Background()))
	assert.ErrorIs(t, h.Wait(context.Background()), agent.ErrStopped)
	assert.Equal(t, int32(1), clock.cancelled.Load(), "the agent ended with the timer still armed")
}
