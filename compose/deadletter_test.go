package compose_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEveryItemEndsOnceAsAValueOrADeadLetter(t *testing.T) {
	const n = 300
	rt := agenttest.Runtime(t)
	limit, err := rate.Stage(rate.Config[int]{Rate: 1e6, Burst: 64})
	require.NoError(t, err)
	work, err := parallel.Stage(parallel.Config{Name: "work", Limit: 4, Retry: parallel.Retry{Attempts: 2, Backoff: time.Millisecond}},
		func(_ context.Context, v int) (int, error) {
			if v%7 == 0 {
				return 0, fmt.Errorf("%d is poison", v)
			}
			return v, nil
		})
	require.NoError(t, err)
	batches, err := buffer.Stage(buffer.Config[int]{Size: 50}, nil)
	require.NoError(t, err)

	var mu sync.Mutex
	var got, dead []int
	c, err := compose.Start(rt, compose.Pipe3(limit, work, batches), func(b []int) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, b...)
	}, compose.WithDeadLetters(func(d agent.DeadLetter) {
		mu.Lock()
		defer mu.Unlock()
		assert.Equal(t, "work", d.Agent)
		assert.Equal(t, 2, d.Attempts)
		dead = append(dead, d.Item.(int))
	}))
	require.NoError(t, err)
	postRange(t, c, n)
	c.Close()
	err = c.Wait(context.Background())

	var dl *agent.DeadLettersError
	require.ErrorAs(t, err, &dl, "Wait says items went to the dead letters")
	assert.Regexp(t, `^work: \d+ items went to the dead letters; the first \(item (\d+), seq (\d+)\) failed after 2 attempts: \d+ is poison$`, err.Error(),
		"the chain names the stage once")
	assert.Equal(t, fmt.Sprintf("%d is poison", dl.First.Item), dl.First.Err.Error())
	assert.Equal(t, dl.First.Item, int(dl.First.Seq), "the items are 0 to n-1, each at its own seq")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, len(dead), dl.N)
	all := append(append([]int(nil), got...), dead...)
	sort.Ints(all)
	require.Len(t, all, n, "each item once, as a value or a dead letter")
	for i, v := range all {
		require.Equal(t, i, v)
	}
	for _, v := range dead {
		assert.Zero(t, v%7, "only the poison items are dead letters")
	}
}
