package adaptive_test

import (
	"context"
	"testing"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/parallel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// job is an item with a key.
type job struct {
	client string
	n      int
}

// TestKeysShareAnAdaptiveAgent drives Evolve with a big client's 40 items
// queued before a small client's 4, at a fixed limit of 1: the small
// client's items start among the big one's, not behind them all, and
// each client's in its order.
func TestKeysShareAnAdaptiveAgent(t *testing.T) {
	s, err := adaptive.NewState[job, int](adaptive.Config{
		Min: 1, Max: 1, Unordered: true, Controller: adaptive.Fixed{},
		Key: func(j job) string { return j.client },
	})
	require.NoError(t, err)
	at := time.Unix(0, 0)
	var order []job
	var flying []uint64
	step := func(m agent.Msg) {
		var fx []agent.Effect
		s, fx = adaptive.Evolve(s, m)
		for _, e := range fx {
			if st, ok := e.(agent.Start[[]job]); ok {
				order = append(order, st.Work...)
				flying = append(flying, st.ID)
			}
		}
	}
	step(agent.Pull{N: agent.Unbounded, At: at})
	var big []job
	for i := range 40 {
		big = append(big, job{"big", i})
	}
	step(agent.Input[job]{Items: big, At: at})
	step(agent.Input[job]{Items: []job{{"small", 0}, {"small", 1}, {"small", 2}, {"small", 3}}, At: at})
	for len(flying) > 0 {
		id := flying[0]
		flying = flying[1:]
		at = at.Add(time.Millisecond)
		step(agent.Done[[]parallel.Result[int]]{ID: id, Result: []parallel.Result[int]{{Seq: id}}, At: at, Took: time.Millisecond})
	}
	require.Len(t, order, 44)
	last, next := -1, map[string]int{}
	for i, j := range order {
		require.Equal(t, next[j.client], j.n, "client %s's items start in their order", j.client)
		next[j.client]++
		if j.client == "small" {
			last = i
		}
	}
	assert.Less(t, last, 12, "the small client's last item starts among the big one's first, not after all 40: %v", order)
}

// TestAKeyOfTheWrongTypeIsAnAdaptiveConfigError checks what NewState says
// of a Key that is not a func(In) string.
func TestAKeyOfTheWrongTypeIsAnAdaptiveConfigError(t *testing.T) {
	_, err := adaptive.NewState[job, int](adaptive.Config{Key: func(string) string { return "" }})
	require.ErrorIs(t, err, adaptive.ErrConfig)
	assert.Contains(t, err.Error(), "key must be a func(adaptive_test.job) string")
	rt := agent.NewRuntime()
	defer func() { require.NoError(t, rt.Shutdown(context.Background())) }()
	_, err = adaptive.New(rt, adaptive.Config{Weights: map[string]int{"a": 2}},
		func(context.Context, job) (int, error) { return 0, nil }, nil)
	require.ErrorIs(t, err, adaptive.ErrConfig)
	assert.Contains(t, err.Error(), "weights need a key")
}
