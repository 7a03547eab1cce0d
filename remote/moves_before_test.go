//go:build !race

package remote_test

import (
	"context"
	"testing"

	"github.com/evolvekit/evolve/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMaxMovesCountsTheMovesAnItemMadeBefore runs trips on a worker
// process holding both tags, under MaxMoves 2, with Config.Moves giving
// each trip N moves made before the stage took it: the worker learns
// them, so the trip with one goes on at once and succeeds, while the trip
// with two has its move fail it for good.
func TestMaxMovesCountsTheMovesAnItemMadeBefore(t *testing.T) {
	node, rt := nodeAndRuntime(t)
	results := make(chan remote.Result[trip], 4)
	h, err := remote.New[trip, trip](rt, remote.Config[trip]{Node: node, Name: "before", MaxMoves: 2,
		Tag: func(trip) string { return "a" }, Moves: func(s trip) int { return s.N }},
		func(r remote.Result[trip]) { results <- r })
	require.NoError(t, err)
	startMover(t, node.Addr(), "before", "a,x", "w1", "")
	awaitWorkers(t, h, 1)
	require.NoError(t, h.Post(context.Background(), trip{N: 1}))
	require.NoError(t, h.Post(context.Background(), trip{N: 2}))
	r := result(t, results)
	require.NoError(t, r.Err, "one move before and one here are within two")
	assert.Equal(t, trip{N: 10, Step: 2, Trail: []string{"w1", "w1"}}, r.Value)
	r = result(t, results)
	assert.ErrorIs(t, r.Err, remote.ErrMoves, "two moves before and one here are more than two")
}
