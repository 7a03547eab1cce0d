package cell_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/cell"
	"github.com/evolvekit/evolve/internal/testing/echo"
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
	sp := echo.Spec(8, func(_ context.Context, v int) (int, error) { return -v, nil })
	sp.Evolve = func(s echo.State, m agent.Msg) (echo.State, []agent.Effect) {
		if _, ok := m.(agent.Query); !ok {
			t.Errorf("Evolve was called with a %T though the spec has Step", m)
		}
		return echo.Evolve(s, m) // the final status is read from a copy
	}
	sp.Step = func(s *echo.State, m agent.Msg, fx []agent.Effect) []agent.Effect {
		steps++
		if _, ok := m.(agent.Done[int]); ok {
			t.Error("a Done came boxed to Step though the spec has StepDone")
		}
		var more []agent.Effect
		*s, more = echo.Evolve(*s, m)
		return append(fx, more...)
	}
	sp.StepDone = func(s *echo.State, d *agent.Done[int], fx []agent.Effect) []agent.Effect {
		dones++
		var more []agent.Effect
		*s, more = echo.Evolve(*s, *d)
		return append(fx, more...)
	}
	var got []int
	h, err := cell.SpawnForTest[int, echo.Status](rt, sp, func(v int) { got = append(got, v) })
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
	sp := echo.Spec(8, func(_ context.Context, v int) (int, error) { return v, nil })
	sp.StepDone = func(*echo.State, *agent.Done[int], []agent.Effect) []agent.Effect {
		return []agent.Effect{agent.Unhandled{}}
	}
	h, err := cell.SpawnForTest[int, echo.Status](rt, sp, nil)
	require.NoError(t, err)
	require.NoError(t, h.Post(context.Background(), -1))
	err = h.Wait(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "did not handle agent.Done[int]")
}

// TestEachDoneOfARoundIsSteppedOnce runs work that waits for a gate, then
// ends all at once, through an agent whose StepDones and StepDone count
// the Dones they take: each Done is stepped once, by one or the other, and
// StepDones only ever gets two or more. Whether a round takes in several
// or each alone is the scheduler's to say (some runs take each alone);
// TestARoundsDonesGoToStepDonesAtOnce shows which way a round goes. With
// 320 in flight, the agent has more than 256 workers, whose results wake it
// through its mailbox, each after the goroutines ready to run have run.
func TestEachDoneOfARoundIsSteppedOnce(t *testing.T) {
	for _, n := range []int{64, 320} {
		t.Run(fmt.Sprintf("%d_in_flight", n), func(t *testing.T) { eachDoneSteppedOnce(t, n) })
	}
}

// eachDoneSteppedOnce is TestEachDoneOfARoundIsSteppedOnce with n in
// flight.
func eachDoneSteppedOnce(t *testing.T, n int) {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	gate := make(chan struct{})
	var started sync.WaitGroup
	started.Add(n)
	sp := echo.Spec(n, func(_ context.Context, v int) (int, error) {
		started.Done()
		<-gate
		return -v, nil
	})
	var one, many, most int
	stepDone := func(s *echo.State, d *agent.Done[int], fx []agent.Effect) []agent.Effect {
		var more []agent.Effect
		*s, more = echo.Evolve(*s, *d)
		return append(fx, more...)
	}
	sp.StepDone = func(s *echo.State, d *agent.Done[int], fx []agent.Effect) []agent.Effect {
		one++
		return stepDone(s, d, fx)
	}
	sp.StepDones = func(s *echo.State, ds []agent.Done[int], fx []agent.Effect) []agent.Effect {
		if len(ds) < 2 {
			t.Errorf("StepDones got %d Dones: one goes to StepDone", len(ds))
		}
		many += len(ds)
		most = max(most, len(ds))
		for i := range ds {
			fx = stepDone(s, &ds[i], fx)
		}
		return fx
	}
	var got []int
	h, err := cell.SpawnForTest[int, echo.Status](rt, sp, func(v int) { got = append(got, v) })
	require.NoError(t, err)
	for i := range n {
		require.NoError(t, h.Post(context.Background(), -(i+1)))
	}
	started.Wait()
	close(gate)
	h.Close()
	require.NoError(t, h.Wait(context.Background()))
	assert.Len(t, got, n, "every result delivered")
	t.Logf("%d Dones alone, %d in rounds of up to %d", one, many, most)
	assert.Equal(t, n, one+many, "each Done stepped once")
	assert.Equal(t, n, cell.WorkersForTest(h), "a worker for each item in flight")
}
