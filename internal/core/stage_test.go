package core_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/testing/echo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func echoStage() core.Stage[int, int] {
	return core.NewStage[int, echo.Status](echo.Spec(8, nil))
}

// An Outlet's Pull is the stage's only demand; the values its Deliver
// refuses give their demand back, so the stage goes on emitting.
func TestAStageEmitsNoMoreThanItsOutletPullsAndRefusalsGiveDemandBack(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		var kept []int
		odd := func(values []int) (int, error) {
			refused := 0
			for _, v := range values {
				if v%2 == 1 {
					refused++
					continue
				}
				kept = append(kept, v)
			}
			return refused, nil
		}
		r, err := echoStage().Start(rt, core.Inlet{}, core.Outlet[int]{Pull: 2, Deliver: odd})
		m := r.Head
		require.NoError(t, err)
		for v := 1; v <= 8; v++ {
			require.NoError(t, m.Post(context.Background(), v))
		}
		time.Sleep(time.Millisecond)               // everything settles
		_, _, err = m.Status(context.Background()) // and this round trip orders it before the read
		require.NoError(t, err)
		require.Equal(t, []int{2, 4}, kept, "two units of demand, the odd values' given back")
		core.PullForTest(m, 10)
		m.Close()
		require.NoError(t, m.Wait(context.Background()))
		require.Equal(t, []int{2, 4, 6, 8}, kept)
	})
}

// Inlet.Demand takes the slots a stage gives back, and Feed passes items
// without spending Post's credits; Ended runs once the stage finished.
func TestAStageInAChainGivesItsSlotsToTheStageBefore(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		var given int
		var got []int
		ended := make(chan struct{})
		r, err := echoStage().Start(rt, core.Inlet{Demand: func(n int) { given += n }},
			core.Outlet[int]{Deliver: func(vs []int) (int, error) { got = append(got, vs...); return 0, nil }, Ended: func() { close(ended) }})
		require.NoError(t, err)
		m := r.Head
		m.Feed([]int{1, 2, 3})
		m.Feed(nil)
		m.Close()
		<-ended
		require.NoError(t, m.Wait(context.Background()))
		assert.Equal(t, []int{1, 2, 3}, got)
		assert.Equal(t, 3, given)
		st, _, err := m.Status(context.Background())
		require.NoError(t, err)
		assert.Equal(t, echo.Status{Seen: 3}, st, "the final status, kept after the end")
	})
}

func TestMapInConvertsAtPostAndCountsWhatItRefusesFromUpstream(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		parse := core.MapIn(echoStage(), strconv.Atoi)
		var given int
		var got []int
		r, err := parse.Start(rt, core.Inlet{Demand: func(n int) { given += n }}, core.SinkOutlet(func(v int) { got = append(got, v) }))
		require.NoError(t, err)
		m := r.Head
		assert.Equal(t, 8, parse.Bound())
		assert.Equal(t, 8, parse.First())
		m.Feed([]string{"1", "x", "3", "y"})
		m.Close()
		err = m.Wait(context.Background())
		require.ErrorIs(t, err, strconv.ErrSyntax)
		assert.ErrorContains(t, err, "agent echo: refused 2 items passed on to it")
		assert.Equal(t, []int{1, 3}, got)
		assert.Equal(t, 4, given, "two slots for the refused items, two as echo passed the others on")

		r, err = parse.Start(rt, core.Inlet{}, core.Outlet[int]{})
		require.NoError(t, err)
		head := r.Head
		require.ErrorIs(t, head.Post(context.Background(), "z"), strconv.ErrSyntax)
		require.ErrorIs(t, head.TryPost("z"), strconv.ErrSyntax)
		require.NoError(t, head.TryPost("5"))
		head.Close()
		require.NoError(t, head.Wait(context.Background()))
	})
}

func TestMapOutDeclinesAndSurvivesAPanic(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		label := core.MapOut(echoStage(), func(v int) (string, bool) {
			if v == 3 {
				panic("three")
			}
			return "#" + strconv.Itoa(v), v != 2
		})
		var got []string
		r, err := label.Start(rt, core.Inlet{}, core.SinkOutlet(func(s string) { got = append(got, s) }))
		require.NoError(t, err)
		m := r.Head
		for v := 1; v <= 4; v++ {
			require.NoError(t, m.Post(context.Background(), v))
		}
		m.Close()
		var pe *agent.PanicError
		require.ErrorAs(t, m.Wait(context.Background()), &pe)
		assert.Equal(t, []string{"#1", "#4"}, got)
	})
}

func TestTheZeroStageDoesNotStart(t *testing.T) {
	_, err := core.Stage[int, int]{}.Start(agenttest.Runtime(t), core.Inlet{}, core.Outlet[int]{})
	require.Error(t, err)
	assert.False(t, errors.Is(err, agent.ErrClosed))
}
