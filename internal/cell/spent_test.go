package cell_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/internal/cell"
	"github.com/evolvekit/evolve/internal/spec"
	"github.com/evolvekit/evolve/internal/testing/echo"
	"github.com/evolvekit/evolve/internal/trace"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A port's Spent takes back each message evolve took, once its step is
// over: the Tick the port posted among them, stamped as evolve saw it.
func TestAPortTakesBackTheMessagesEvolveIsDoneWith(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		s := echo.Spec(4, nil)
		var mu sync.Mutex
		var spent []agent.Msg
		s.Open = func(post func(agent.Msg) bool, _ zerolog.Logger, _ *trace.Line) (spec.Port, error) {
			require.True(t, post(agent.Tick{Tag: 7}))
			return spec.Port{Spent: func(m agent.Msg) {
				mu.Lock()
				spent = append(spent, m)
				mu.Unlock()
			}}, nil
		}
		a, err := cell.SpawnForTest[int, echo.Status](rt, s, func(int) {})
		require.NoError(t, err)
		require.NoError(t, a.Post(context.Background(), 5))
		a.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		require.NoError(t, a.Wait(ctx))
		mu.Lock()
		defer mu.Unlock()
		var ticks, inputs int
		for _, m := range spent {
			switch m := m.(type) {
			case agent.Tick:
				ticks++
				assert.Equal(t, uint64(7), m.Tag)
				assert.False(t, m.At.IsZero(), "stamped, as evolve took it")
			case agent.Input[int]:
				inputs += len(m.Items)
			}
		}
		assert.Equal(t, 1, ticks, "the Tick the port posted")
		assert.Equal(t, 1, inputs, "the item posted")
	})
}
