package core_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/testing/echo"
	"github.com/evolvekit/evolve/internal/trace"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Plan lists a chain's agents first to last, with the conversions
// between them where values pass: the MapIn functions in front of the
// first, those of MapOut and MapIn between two neighbours, and the MapOut
// functions after the last.
func TestAPlanDescribesTheAgentsOfAChainAndTheConversionsBetweenThem(t *testing.T) {
	pacer := echo.Spec(3, nil)
	pacer.Name, pacer.Paces = "pacer", true
	worker := echo.Spec(5, nil)
	worker.Name, worker.Reserves = "worker", true

	a := core.MapIn(core.NewStage[int, echo.Status](pacer), func(s string) (int, error) { return strconv.Atoi(s) })
	a = core.MapOut(a, func(v int) (int, bool) { return v, v%2 == 0 })
	b := core.MapIn(core.NewStage[int, echo.Status](worker), func(v int) (int, error) {
		if v < 0 {
			return 0, errors.New("negative")
		}
		return 10 * v, nil
	})
	chain := core.MapOut(core.Link(a, b), func(v int) (string, bool) { return strconv.Itoa(v), true })

	p := chain.Plan()
	require.Len(t, p.Agents, 2)
	first, second := p.Agents[0], p.Agents[1]
	assert.Equal(t, "pacer", first.Name)
	assert.Equal(t, 3, first.Queue)
	assert.True(t, first.Paces)
	assert.False(t, first.Reserves)
	assert.Equal(t, "worker", second.Name)
	assert.Equal(t, 5, second.Queue)
	assert.True(t, second.Reserves)
	assert.False(t, first.Outside || second.Outside)

	require.Len(t, p.In, 1)
	kept, dropped, err := p.In[0].Apply(agent.Emit[string]{Values: []string{"1", "x", "3"}})
	assert.Equal(t, []int{1, 3}, core.Values[int](kept))
	assert.Equal(t, 1, dropped)
	assert.Error(t, err, "the reason of the first refusal")
	assert.True(t, p.In[0].Refuses)

	require.Len(t, first.Next, 2, "the pacer's MapOut, then the worker's MapIn")
	assert.False(t, first.Next[0].Refuses)
	kept, dropped, err = first.Next[0].Apply(agent.Emit[int]{Values: []int{1, 2, -4, 5}})
	require.NoError(t, err)
	assert.Equal(t, []int{2, -4}, core.Values[int](kept))
	assert.Equal(t, 2, dropped, "odd values declined")
	assert.True(t, first.Next[1].Refuses)
	kept, dropped, err = first.Next[1].Apply(kept)
	assert.Equal(t, []int{20}, core.Values[int](kept))
	assert.Equal(t, 1, dropped)
	assert.EqualError(t, err, "negative")
	assert.Empty(t, second.Next, "the last agent's conversions are the plan's Out")

	require.Len(t, p.Out, 1)
	kept, dropped, err = p.Out[0].Apply(agent.Emit[int]{Values: []int{7}})
	require.NoError(t, err)
	assert.Equal(t, []string{"7"}, core.Values[string](kept))
	assert.Zero(t, dropped)
}

// A MapOut function that panics declines its value, and the panic is the
// error; a MapIn function that panics refuses its item.
func TestAPlansConversionsTurnPanicsIntoErrors(t *testing.T) {
	s := core.MapOut(core.NewStage[int, echo.Status](echo.Spec(2, nil)), func(v int) (int, bool) {
		if v == 0 {
			panic("zero")
		}
		return v, true
	})
	s = core.MapIn(s, func(v int) (int, error) {
		if v == 0 {
			panic("zero in")
		}
		return v, nil
	})
	p := s.Plan()
	kept, dropped, err := p.Out[0].Apply(agent.Emit[int]{Values: []int{1, 0, 2}})
	assert.Equal(t, []int{1, 2}, core.Values[int](kept))
	assert.Equal(t, 1, dropped)
	var pe *agent.PanicError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "zero", pe.Value)
	kept, dropped, err = p.In[0].Apply(agent.Emit[int]{Values: []int{0, 3}})
	assert.Equal(t, []int{3}, core.Values[int](kept))
	assert.Equal(t, 1, dropped)
	require.ErrorAs(t, err, &pe)
}

// Each call builds the Plan anew: changing one leaves the next as it was.
func TestEachPlanIsANewOne(t *testing.T) {
	s := core.Link(core.NewStage[int, echo.Status](echo.Spec(2, nil)), core.NewStage[int, echo.Status](echo.Spec(4, nil)))
	p := s.Plan()
	p.Agents[0].Name = "changed"
	p.Agents[1].Next = append(p.Agents[1].Next, core.Convert{})
	q := s.Plan()
	assert.Equal(t, "echo", q.Agents[0].Name)
	assert.Empty(t, q.Agents[1].Next)
	assert.Empty(t, core.Stage[int, int]{}.Plan().Agents, "the zero Stage has no agents")
}

// An agent that connects outside the runtime says so.
func TestAPlanSaysWhichAgentsConnectOutside(t *testing.T) {
	spec := echo.Spec(2, nil)
	spec.Open = func(func(agent.Msg) bool, zerolog.Logger, *trace.Line) (core.Port, error) { return core.Port{}, nil }
	p := core.NewStage[int, echo.Status](spec).Plan()
	assert.True(t, p.Agents[0].Outside)
}

// A Machine keeps the agent's state, evolves it, runs its work at once and
// builds and reads the messages and effects of the agent's types.
func TestAMachineRunsAnAgentOutsideTheRuntime(t *testing.T) {
	calls := 0
	spec := echo.Spec(4, func(_ context.Context, v int) (int, error) {
		calls++
		if v == -2 {
			panic("two")
		}
		return -v, nil
	})
	newMachine := core.NewStage[int, echo.Status](spec).Plan().Agents[0].New
	m := newMachine()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	assert.Empty(t, m.Step(agent.Pull{At: at, N: 10}))
	fx := m.Step(m.Input(at, agent.Emit[int]{Values: []int{5, -1, -2}}))
	require.Len(t, fx, 6, "two Starts with their Demands, the 5 emitted with its Demand")

	var ids []uint64
	for _, e := range fx {
		if id, ok := m.Start(context.Background(), e); ok {
			ids = append(ids, id)
		}
	}
	require.Equal(t, []uint64{1, 2}, ids)
	assert.Equal(t, 2, calls, "the work ran as it started")
	n, ok := m.Emitted(fx[4])
	require.True(t, ok)
	assert.Equal(t, agent.Emit[int]{Values: []int{5}}, fx[4], "the Emit is the batch")
	assert.Equal(t, 1, n)
	_, ok = m.Emitted(fx[0])
	assert.False(t, ok, "a Start is no Emit")
	_, ok = m.Start(context.Background(), fx[4])
	assert.False(t, ok, "an Emit is no Start")

	done := m.Done(at, 1).(agent.Done[int])
	assert.Equal(t, agent.Done[int]{At: at, ID: 1, Result: 1}, done)
	broke := m.Done(at, 2).(agent.Done[int])
	var pe *agent.PanicError
	require.ErrorAs(t, broke.Err, &pe, "a panic in the work is the Done's error")
	fx = m.Step(done)
	require.Len(t, fx, 2)
	assert.Equal(t, agent.Emit[int]{Values: []int{1}}, fx[0])

	st, ok := m.Status(at)
	require.True(t, ok)
	assert.Equal(t, echo.Status{Seen: 3, Running: 1}, st)
	st, _ = m.Status(at)
	assert.Equal(t, echo.Status{Seen: 3, Running: 1}, st, "asking changes nothing")

	fresh, _ := newMachine().Status(at)
	assert.Equal(t, echo.Status{}, fresh, "each Machine starts from the initial state")
}

// An agent without work gets the zero result.
func TestAMachineWithoutWorkGivesTheZeroResult(t *testing.T) {
	m := core.NewStage[int, echo.Status](echo.Spec(4, nil)).Plan().Agents[0].New()
	id, ok := m.Start(context.Background(), agent.Start[int]{ID: 9, Work: -3})
	require.True(t, ok)
	assert.Equal(t, uint64(9), id)
	assert.Equal(t, agent.Done[int]{ID: 9}, m.Done(time.Time{}, 9))
}

// A Machine names the messages its agent takes beyond package agent's: its
// Input and Done, and the Set and Event messages of its Spec's Takes.
func TestAMachineNamesTheMessagesItsAgentTakes(t *testing.T) {
	sp := echo.Spec(1, nil)
	sp.Takes = []agent.Msg{agent.Set[time.Duration]{}, agent.Event[string]{}}
	m := core.NewStage[int, echo.Status](sp).Plan().Agents[0].New()
	assert.Equal(t, []agent.Msg{agent.Input[int]{}, agent.Done[int]{}, agent.Set[time.Duration]{}, agent.Event[string]{}}, m.Messages())
}

// A Machine hands the result of the last Done back, when told to, to the
// work of a later Start, through the Spec's Recycle and Reuse.
func TestAMachineRecyclesTheResultOfADone(t *testing.T) {
	spec := echo.Spec(4, nil)
	var spares []int
	spec.Reuse = func(_ context.Context, _ uint64, v int, spare int) (int, error) {
		spares = append(spares, spare)
		return v, nil
	}
	spec.Recycle = func(r int) int { return -r }
	m := core.NewStage[int, echo.Status](spec).Plan().Agents[0].New()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	_, ok := m.Start(context.Background(), agent.Start[int]{ID: 1, Work: 7})
	require.True(t, ok)
	assert.Equal(t, agent.Done[int]{At: at, ID: 1, Result: 7}, m.Done(at, 1))
	m.Recycle()
	_, _ = m.Start(context.Background(), agent.Start[int]{ID: 2, Work: 8})
	_, _ = m.Start(context.Background(), agent.Start[int]{ID: 3, Work: 9})
	assert.Equal(t, []int{0, -7, 0}, spares, "the first Start had no spare, the second the result recycled, the third none left")
}

// StepDone steps the Done of a work as Done then Step would: through the
// Spec's StepDone, handed the Done unboxed, when it has one, else through
// its evolve; either way the result is forgotten, and Recycle takes it.
func TestAMachineStepsADoneAsDoneThenStepWould(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, unboxed := range []bool{false, true} {
		spec := echo.Spec(4, func(_ context.Context, v int) (int, error) { return 10 * v, nil })
		var got []agent.Done[int]
		if unboxed {
			spec.StepDone = func(s *echo.State, d *agent.Done[int], fx []agent.Effect) []agent.Effect {
				got = append(got, *d)
				var more []agent.Effect
				*s, more = echo.Evolve(*s, *d)
				return append(fx, more...)
			}
		}
		m := core.NewStage[int, echo.Status](spec).Plan().Agents[0].New()
		m.Step(agent.Pull{At: at, N: 10})
		fx := m.Step(m.Input(at, agent.Emit[int]{Values: []int{-3}}))
		for _, e := range fx {
			m.Start(context.Background(), e)
		}
		fx = m.StepDone(at, 1)
		assert.Contains(t, fx, agent.Effect(agent.Emit[int]{Values: []int{-30}}), "unboxed %v: the result emitted", unboxed)
		if unboxed {
			assert.Equal(t, []agent.Done[int]{{At: at, ID: 1, Result: -30}}, got, "the spec's StepDone took the Done")
		}
		assert.Equal(t, agent.Done[int]{At: at, ID: 1}, m.Done(at, 1), "unboxed %v: the result forgotten", unboxed)
		st, _ := m.Status(at)
		assert.Equal(t, echo.Status{Seen: 1}, st, "unboxed %v", unboxed)
	}
}

// TestAMachineStepsAnInputAsInputThenStepWould steps an Input through a
// machine's StepInput with no StepInput in the spec, with one of the
// agent's item type (which takes the Input unboxed) and with one of
// another item type (which is not called): the work starts all the same.
func TestAMachineStepsAnInputAsInputThenStepWould(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, kind := range []string{"none", "unboxed", "other type"} {
		spec := echo.Spec(4, func(_ context.Context, v int) (int, error) { return 10 * v, nil })
		var got []agent.Input[int]
		step := func(s *echo.State, in *agent.Input[int], fx []agent.Effect) []agent.Effect {
			got = append(got, *in)
			var more []agent.Effect
			*s, more = echo.Evolve(*s, *in)
			return append(fx, more...)
		}
		switch kind {
		case "unboxed":
			spec.StepInput = step
		case "other type":
			spec.StepInput = func(*echo.State, *agent.Input[string], []agent.Effect) []agent.Effect {
				t.Fatal("a StepInput of strings was called for ints")
				return nil
			}
		}
		m := core.NewStage[int, echo.Status](spec).Plan().Agents[0].New()
		m.Step(agent.Pull{At: at, N: 10})
		fx := m.StepInput(at, agent.Emit[int]{Values: []int{-3}})
		assert.Contains(t, fx, agent.Effect(agent.Start[int]{ID: 1, Work: -3}), "%s: the work started", kind)
		if kind == "unboxed" {
			assert.Equal(t, []agent.Input[int]{{At: at, Items: []int{-3}}}, got, "the spec's StepInput took the Input")
		}
	}
}
