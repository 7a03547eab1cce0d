package parallel_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/parallel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tenant is an item with a key.
type tenant struct {
	key string
	n   int
}

func keyOf(t tenant) string { return t.key }

// TestAFloodOfOneKeyLeavesTheOthersRoom fills a keyed agent's queue from
// one key: Post refuses that key's next item while another key's still
// gets in, and every item comes out once the work goes on.
func TestAFloodOfOneKeyLeavesTheOthersRoom(t *testing.T) {
	rt := agent.NewRuntime()
	defer func() { require.NoError(t, rt.Shutdown(context.Background())) }()
	gate := make(chan struct{})
	work := func(ctx context.Context, v tenant) (string, error) {
		select {
		case <-gate:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		return v.key, nil
	}
	var got []string
	a, err := parallel.New(rt, parallel.Config{Limit: 1, Queue: 8, KeyQueue: 3, Unordered: true, Key: keyOf}, work,
		func(r parallel.Result[string]) { got = append(got, r.Value) })
	require.NoError(t, err)
	// The first item of key a may start (one place), the next three
	// wait: a holds three of the eight slots and no more.
	posted := 0
	for i := range 10 {
		if err := a.TryPost(tenant{"a", i}); err != nil {
			require.ErrorIs(t, err, agent.ErrFull)
			break
		}
		posted++
	}
	assert.GreaterOrEqual(t, posted, 3, "key a gets its bound")
	assert.LessOrEqual(t, posted, 4, "key a gets its bound and the place of the item that started")
	require.NoError(t, a.TryPost(tenant{"b", 0}), "key b gets in beside a's flood")
	require.NoError(t, a.TryPost(tenant{"b", 1}))
	close(gate)
	a.Close()
	require.NoError(t, a.Wait(context.Background()))
	assert.Len(t, got, posted+2)
}

// TestAKeyOfTheWrongTypeIsAConfigError checks what NewState says of a
// Key that is not a func(In) string, and of weights without a key.
func TestAKeyOfTheWrongTypeIsAConfigError(t *testing.T) {
	_, err := parallel.NewState[tenant, string](parallel.Config{Limit: 1, Key: func(int) string { return "" }})
	require.ErrorIs(t, err, parallel.ErrConfig)
	assert.Contains(t, err.Error(), "key must be a func(parallel_test.tenant) string, got func(int) string")
	_, err = parallel.NewState[tenant, string](parallel.Config{Limit: 1, Weights: map[string]int{"a": 2}})
	require.ErrorIs(t, err, parallel.ErrConfig)
	assert.Contains(t, err.Error(), "weights need a key")
	_, err = parallel.NewState[tenant, string](parallel.Config{Limit: 1, Key: keyOf, Weights: map[string]int{"a": 0}})
	require.ErrorIs(t, err, parallel.ErrConfig)
	assert.Contains(t, err.Error(), `weight of key "a" must be at least 1, got 0`)
	_, err = parallel.NewState[tenant, string](parallel.Config{Limit: 1, Key: keyOf, Quantum: -1})
	assert.True(t, errors.Is(err, parallel.ErrConfig))
}

// TestStatusGivesEachKeysItemsAndWeight checks what Status says of the
// keys of a keyed agent: the items of each waiting, those started from
// its line, and its weight; a key with neither is in none of them.
func TestStatusGivesEachKeysItemsAndWeight(t *testing.T) {
	s, err := parallel.NewState[tenant, string](parallel.Config{Limit: 2, MaxBatch: 1, Unordered: true, Key: keyOf, Weights: map[string]int{"a": 3}})
	require.NoError(t, err)
	at := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	s, _ = parallel.Evolve(s, agent.Msg(agent.Pull{N: agent.Unbounded, At: at}))
	s, _ = parallel.Evolve(s, agent.Msg(agent.Input[tenant]{Items: []tenant{{"a", 0}, {"a", 1}, {"a", 2}, {"a", 3}, {"b", 0}, {"b", 1}}, At: at}))
	st := s.Status()
	// a has the first turn and its weight of 3 lets both places go to it.
	assert.Equal(t, map[string]int{"a": 2, "b": 2}, st.Keys)
	assert.Equal(t, map[string]int{"a": 2, "b": 0}, st.Started)
	assert.Equal(t, map[string]int{"a": 3, "b": 1}, st.Weights)
	assert.Equal(t, 4, st.Queued)

	// A key alone goes past the lines: its items waiting are counted,
	// those started are not.
	s, err = parallel.NewState[tenant, string](parallel.Config{Limit: 2, MaxBatch: 1, Unordered: true, Key: keyOf, Weights: map[string]int{"a": 3}})
	require.NoError(t, err)
	s, _ = parallel.Evolve(s, agent.Msg(agent.Pull{N: agent.Unbounded, At: at}))
	s, _ = parallel.Evolve(s, agent.Msg(agent.Input[tenant]{Items: []tenant{{"a", 0}, {"a", 1}, {"a", 2}}, At: at}))
	st = s.Status()
	assert.Equal(t, map[string]int{"a": 1}, st.Keys)
	assert.Equal(t, map[string]int{"a": 3}, st.Weights)
	assert.Empty(t, st.Started)

	none, err := parallel.NewState[tenant, string](parallel.Config{Limit: 2})
	require.NoError(t, err)
	assert.Nil(t, none.Status().Keys, "an agent without a Key has no keys")
}
