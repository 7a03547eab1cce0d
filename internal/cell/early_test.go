package cell_test

import (
	"context"
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

// An agent's port opens before its actor exists, and may post to it at
// once (a shared rate limit's first grant, say): the wake that post asks
// for reaches the actor once it is spawned. Lost, it left the inbox's
// token taken for good: nothing posted after woke the agent, and a Stop
// never ended it (a runtime's Shutdown waited for ever).
func TestAPostAsThePortOpensWakesTheAgent(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		s := echo.Spec(4, nil)
		s.Open = func(post func(agent.Msg) bool, _ zerolog.Logger, _ *trace.Line) (spec.Port, error) {
			require.True(t, post(agent.Tick{Tag: 7}), "the agent takes a post before its actor exists")
			return spec.Port{}, nil
		}
		var got []int
		a, err := cell.SpawnForTest[int, echo.Status](rt, s, func(v int) { got = append(got, v) })
		require.NoError(t, err)
		require.NoError(t, a.Post(context.Background(), 5))
		a.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		require.NoError(t, a.Wait(ctx), "the agent ends")
		assert.Equal(t, []int{5}, got)
		st, err := a.Status(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, st.Ticks, "the post made as the port opened was taken in")
	})
}
