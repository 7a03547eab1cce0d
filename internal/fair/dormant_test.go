package fair

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAFloodOfOneOffKeysLeavesBoundedAccounts(t *testing.T) {
	q := newQueue(t, time.Millisecond)
	for i := range 20 * maxDormant {
		k := fmt.Sprint("once-", i)
		q.Push(k, i)
		_, h, vs, charge := q.PopRun(1, nil)
		require.Equal(t, []int{i}, vs)
		q.DoneFlow(h, 1, charge, time.Millisecond)
		require.LessOrEqual(t, len(q.index), 2*maxDormant+1, "item %d: keys indexed", i)
		require.LessOrEqual(t, len(q.flows), 2*maxDormant+2, "item %d: accounts kept", i)
	}
	assert.Zero(t, q.Flows(), "no key has anything queued or in flight")
}

func TestAKeyThatComesBackHasFreshAccounts(t *testing.T) {
	q := newQueue(t, time.Millisecond)
	q.Push("a", 1)
	k, v, charge, ok := q.Pop()
	require.True(t, ok)
	require.Equal(t, "a", k)
	require.Equal(t, 1, v)
	q.Done("a", charge, 50*time.Millisecond) // a debt of 49 quanta, forgiven as its line empties
	require.Zero(t, q.Flows())
	q.Push("a", 2)
	q.Push("b", 3)
	_, _, c, _ := q.Pop()
	assert.Equal(t, 50*time.Millisecond, c, "charged what its items took, which every key's took too")
	q.Done("a", c, time.Millisecond)
	k, _, _, ok = q.Pop()
	require.True(t, ok)
	assert.Equal(t, "b", k, "a's debt was forgiven, and its turn ended with its line")
	q.Done("late", time.Millisecond, time.Second) // a key never started: nothing to correct
	assert.Zero(t, q.Queued("a"))
}

func TestACloneNamesTheSameKeysByTheirFlows(t *testing.T) {
	q := newQueue(t, time.Millisecond)
	q.Push("a", 1)
	q.Push("a", 2)
	_, h, _, charge := q.PopRun(1, nil)
	c := q.Clone()
	c.DoneFlow(h, 1, charge, 3*time.Millisecond)
	assert.Zero(t, c.flows[h].flight, "the clone's a had one in flight, now none")
	assert.Equal(t, 1, q.flows[h].flight, "the original keeps its own")
	assert.Equal(t, "a", c.flows[h].key)
}
