package chain_test

import (
	"context"
	"errors"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/internal/chain"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/testing/echo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// twoEchoes is two echo agents linked, each with a queue of 4.
func twoEchoes() core.Stage[int, int] {
	return core.Link(core.NewStage[int, echo.Status](echo.Spec(4, nil)), core.NewStage[int, echo.Status](echo.Spec(4, nil)))
}

func TestTheZeroOptionsRunTheStageAlone(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		var got []int
		c, err := chain.Start(rt, twoEchoes(), chain.Options{}, func(v int) { got = append(got, v) })
		require.NoError(t, err)
		for i := 1; i <= 20; i++ {
			require.NoError(t, c.Post(context.Background(), i))
		}
		c.Close()
		require.NoError(t, c.Wait(context.Background()))
		assert.Len(t, got, 20)
		agents, dropped, err := c.Status(context.Background())
		require.NoError(t, err)
		assert.Equal(t, []string{"echo", "echo"}, []string{agents[0].Name, agents[1].Name})
		assert.Equal(t, echo.Status{Seen: 20}, agents[1].Detail)
		assert.Zero(t, dropped)
		assert.Equal(t, 8, c.Bound())
	})
}

func TestTheGateStandsFirstAndItsDropsAreTheChains(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		c, err := chain.Start(rt, twoEchoes(), chain.Options{Gate: true}, nil)
		require.NoError(t, err)
		agents, _, err := c.Status(context.Background())
		require.NoError(t, err)
		require.Len(t, agents, 3)
		assert.Equal(t, "overflow", agents[0].Name)
		assert.Equal(t, 12, c.Bound(), "the gate holds up to the first agent's bound")
		c.Close()
		require.NoError(t, c.Wait(context.Background()))
	})
}

// failing is a writer that fails.
type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWaitWrapsTheRecordingsErrorInRecordFailed(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		failed := errors.New("recording failed")
		c, err := chain.Start(rt, twoEchoes(), chain.Options{Record: failing{}, RecordFailed: failed}, nil)
		require.NoError(t, err)
		require.NoError(t, c.Post(context.Background(), 1))
		c.Close()
		err = c.Wait(context.Background())
		require.ErrorIs(t, err, failed)
		assert.ErrorContains(t, err, "disk full")
		<-c.Done()
	})
}
