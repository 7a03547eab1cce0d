package core_test

import (
	"context"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheRuntimeStepsInPlaceAndHandsDonesUnboxed runs echo through Step and
// StepDone, which count their calls: the runtime calls them, and Evolve
// only for the final status, and every Done goes to StepDone.
func TestTheRuntimeStepsInPlaceAndHandsDonesUnboxed(t *testing.T) {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	var steps, dones int
	sp := echoSpec(8, func(_ context.Context, v int) (int, error) { return -v, nil })
	sp.Evolve = func(s echo, m agent.Msg) (echo, []agent.Effect) {
		if _, ok := m.(agent.Query); !ok {
			t.Errorf("Evolve was called with a %T though the spec has Step", m)
		}
		return echoEvolve(s, m) // the final status is read from a copy
	}
	sp.Step = func(s *echo, m agent.Msg, fx []agent.Effect) []agent.Effect {
		steps++
		if _, ok := m.(agent.Done[int]); ok {
			t.Error("a Done came boxed to Step though the spec has StepDone")
		}
		var more []agent.Effect
		*s, more = echoEvolve(*s, m)
		return append(fx, more...)
	}
	sp.StepDone = func(s *echo, d *agent.Done[int], fx []agent.Effect) []agent.Effect {
		dones++
		var more []agent.Effect
		*s, more = echoEvolve(*s, *d)
		return append(fx, more...)
	}
	var got []int
	h, err := core.Spawn[int, echoStatus](rt, sp, func(v int) { got = append(got, v) })
	require.NoError(t, err)
	for _, v := range []int{-1, 5, -2, -3} {
		require.NoError(t, h.Post(context.Background(), v))
	}
	h.Close()
	require.NoError(t, h.Wait(context.Background()))
	assert.ElementsMatch(t, []int{1, 5, 2, 3}, got)
	assert.Equal(t, 3, dones, "one Done for each item worked on")
	assert.Positive(t, steps)
}

// TestADoneStepDoneLeavesUnhandledIsNamed checks that a Done handed over
// unboxed, which StepDone answers with Unhandled, fails the agent with an
// error that names the Done's type.
func TestADoneStepDoneLeavesUnhandledIsNamed(t *testing.T) {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	sp := echoSpec(8, func(_ context.Context, v int) (int, error) { return v, nil })
	sp.StepDone = func(*echo, *agent.Done[int], []agent.Effect) []agent.Effect {
		return []agent.Effect{agent.Unhandled{}}
	}
	h, err := core.Spawn[int, echoStatus](rt, sp, nil)
	require.NoError(t, err)
	require.NoError(t, h.Post(context.Background(), -1))
	err = h.Wait(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "did not handle agent.Done[int]")
}
