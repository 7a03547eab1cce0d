package fair

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newQueue(t *testing.T, quantum time.Duration) *Queue[string, int] {
	t.Helper()
	q, err := New[string, int](quantum)
	require.NoError(t, err)
	return q
}

// serve runs q through one worker for span of virtual time, each item of
// key k taking cost[k], and returns the work time each key was given.
// Every key stays backlogged: each item started is replaced at once.
func serve(t *testing.T, q *Queue[string, int], cost map[string]time.Duration, span time.Duration) map[string]time.Duration {
	t.Helper()
	got := map[string]time.Duration{}
	for now := time.Duration(0); now < span; {
		k, _, charge, ok := q.Pop()
		require.True(t, ok, "an item waits")
		q.Push(k, 0)
		q.Done(k, charge, cost[k])
		got[k] += cost[k]
		now += cost[k]
	}
	return got
}

func TestNewAndSetWeightRefuseWhatIsOutOfRange(t *testing.T) {
	_, err := New[string, int](0)
	assert.ErrorContains(t, err, "the quantum must be positive, not 0s")
	q := newQueue(t, time.Millisecond)
	assert.ErrorContains(t, q.SetWeight("a", 0), "a key's weight must be at least 1, not 0")
}

func TestAKeyAloneGetsEverythingInOrder(t *testing.T) {
	q := newQueue(t, time.Millisecond)
	for i := range 100 {
		q.Push("a", i)
	}
	for i := range 100 {
		k, v, charge, ok := q.Pop()
		require.True(t, ok)
		assert.Equal(t, "a", k)
		assert.Equal(t, i, v, "its items in the order they came")
		q.Done(k, charge, 5*time.Millisecond) // five quanta each: it is charged, but alone
	}
	_, _, _, ok := q.Pop()
	assert.False(t, ok)
	assert.Zero(t, q.Flows(), "nothing kept once its work is done")
}

func TestWeightsShareTheWorkersTime(t *testing.T) {
	q := newQueue(t, 2*time.Millisecond)
	require.NoError(t, q.SetWeight("b", 2))
	require.NoError(t, q.SetWeight("c", 4))
	for _, k := range []string{"a", "b", "c", "a", "b", "c"} {
		q.Push(k, 0)
	}
	cost := map[string]time.Duration{"a": time.Millisecond, "b": time.Millisecond, "c": time.Millisecond}
	got := serve(t, q, cost, 7*time.Second)
	assert.InDelta(t, 1*time.Second, got["a"], float64(10*time.Millisecond))
	assert.InDelta(t, 2*time.Second, got["b"], float64(10*time.Millisecond))
	assert.InDelta(t, 4*time.Second, got["c"], float64(10*time.Millisecond))
}

// A key of slow items gets the time a key of quick ones does, not the
// same number of items.
func TestSlowItemsAreChargedTheirTime(t *testing.T) {
	q := newQueue(t, 5*time.Millisecond)
	for _, k := range []string{"slow", "quick", "slow", "quick"} {
		q.Push(k, 0)
	}
	cost := map[string]time.Duration{"slow": 40 * time.Millisecond, "quick": 100 * time.Microsecond}
	got := serve(t, q, cost, 10*time.Second)
	assert.InDelta(t, 5*time.Second, got["slow"], float64(50*time.Millisecond))
	assert.InDelta(t, 5*time.Second, got["quick"], float64(50*time.Millisecond))
}

// An item far slower than its estimate leaves its key a debt, which it
// pays back in turns the others take, and Pop skips the turns that would
// start nothing.
func TestADebtIsPaidBackInTheOthersTurns(t *testing.T) {
	q := newQueue(t, time.Millisecond)
	q.Push("a", 0)
	k, _, charge, _ := q.Pop()
	require.Equal(t, "a", k)
	q.Push("a", 1)
	q.Done("a", charge, 10*time.Second) // ten thousand quanta
	for i := range 3 {
		q.Push("b", i)
	}
	for i := range 3 {
		k, v, charge, ok := q.Pop()
		require.True(t, ok)
		assert.Equal(t, "b", k, "a owes ten seconds: b goes first")
		assert.Equal(t, i, v)
		q.Done(k, charge, time.Millisecond)
	}
	k, v, _, ok := q.Pop()
	require.True(t, ok)
	assert.Equal(t, "a", k, "alone, a starts again whatever it owes")
	assert.Equal(t, 1, v)
}

func TestCloneSharesNothing(t *testing.T) {
	q := newQueue(t, time.Millisecond)
	q.Push("a", 1)
	q.Push("b", 2)
	c := q.Clone()
	k, _, _, _ := q.Pop()
	assert.Equal(t, 2, c.Len(), "the clone keeps its items")
	k2, _, _, _ := c.Pop()
	assert.Equal(t, k, k2, "and hands them out as q did")
	require.NoError(t, c.SetWeight("b", 3))
	assert.Equal(t, 1, q.Weight("b"))
}
