package parallel_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/parallel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestItemsThatFailForGoodGoToTheDeadLetters(t *testing.T) {
	rt := agenttest.Runtime(t)
	var mu sync.Mutex
	var dead []agent.DeadLetter
	tries := map[int]int{}
	work := func(_ context.Context, v int) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		tries[v]++
		if v%3 == 0 {
			return 0, fmt.Errorf("item %d is poison", v)
		}
		if tries[v] == 1 {
			return 0, errors.New("flaky")
		}
		return 2 * v, nil
	}
	var results []parallel.Result[int]
	a, err := parallel.New(rt, parallel.Config{Name: "loader", Limit: 2,
		Retry:       parallel.Retry{Attempts: 3, Backoff: time.Millisecond},
		DeadLetters: func(d agent.DeadLetter) { dead = append(dead, d) },
	}, work, func(r parallel.Result[int]) { results = append(results, r) })
	require.NoError(t, err)
	postAll(t, a, 1, 2, 3, 4, 5, 6)
	a.Close()
	err = a.Wait(context.Background())

	var dl *agent.DeadLettersError
	require.ErrorAs(t, err, &dl)
	assert.Equal(t, 2, dl.N)
	assert.Regexp(t, `^loader: 2 items went to the dead letters; the first \(item ([36]), seq [25]\) failed after 3 attempts: item ([36]) is poison$`, err.Error())
	require.Len(t, dead, 2)
	slices.SortFunc(dead, func(a, b agent.DeadLetter) int { return int(a.Seq) - int(b.Seq) })
	assert.Equal(t, agent.DeadLetter{Agent: "loader", Seq: 2, Item: 3, Err: dead[0].Err, Attempts: 3}, dead[0])
	assert.EqualError(t, dead[0].Err, "item 3 is poison")
	assert.Equal(t, agent.DeadLetter{Agent: "loader", Seq: 5, Item: 6, Err: dead[1].Err, Attempts: 3}, dead[1])
	require.Len(t, results, 6, "the sink still gets a result in each item's place")
	for _, r := range results {
		if r.Err == nil {
			assert.Equal(t, int(2*(r.Seq+1)), r.Value)
		}
	}
	st, err := a.Status(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 4+4, st.Retried, "each flaky item once, each poison item twice")
}

func TestWithoutADeadLetterSinkWaitReportsTheFirstFailure(t *testing.T) {
	rt := agenttest.Runtime(t)
	boom := errors.New("boom")
	a, err := parallel.New(rt, parallel.Config{Limit: 1}, func(context.Context, int) (int, error) { return 0, boom }, nil)
	require.NoError(t, err)
	postAll(t, a, 1)
	a.Close()
	err = a.Wait(context.Background())
	assert.ErrorIs(t, err, boom)
	assert.EqualError(t, err, "boom", "the first failure, as before")
}
