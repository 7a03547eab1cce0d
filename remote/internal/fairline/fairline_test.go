package fairline

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestALineChargesWhatTheWorkTookOnceTheItemEnds(t *testing.T) {
	l, err := New(time.Millisecond, nil)
	require.NoError(t, err)
	l.Push("a", 0)
	l.Push("a", 1)
	l.Push("b", 2)
	seq, ok := l.Pop()
	assert.True(t, ok)
	assert.Equal(t, uint64(0), seq, "a's turn, its first item")
	assert.Equal(t, map[string]Count{"a": {Queued: 1, Started: 1, Weight: 1}, "b": {Queued: 1, Weight: 1}}, counts(l))
	l.Work(0, 2*time.Millisecond)
	l.Work(0, 3*time.Millisecond) // a retry's
	l.End(0)
	l.End(0) // once only
	seq, _ = l.Pop()
	assert.Equal(t, uint64(2), seq, "a owes 4 ms: b's turn")
	seq, _ = l.Pop()
	assert.Equal(t, uint64(1), seq, "b ran out: a alone goes on, its debt and all")
	_, ok = l.Pop()
	assert.False(t, ok)
	assert.Zero(t, l.Len())
	l.End(2) // no work measured: charged its estimate
	l.End(1)
	assert.Empty(t, counts(l), "nothing queued or out: forgotten")
}

func TestACloneSharesNothing(t *testing.T) {
	l, err := New(time.Millisecond, map[string]int{"a": 2})
	require.NoError(t, err)
	l.Push("a", 0)
	c := l.Clone()
	seq, ok := c.Pop()
	assert.True(t, ok)
	assert.Equal(t, uint64(0), seq)
	assert.Equal(t, 1, l.Len(), "the original keeps its item")
	assert.Equal(t, map[string]Count{"a": {Queued: 1, Weight: 2}}, counts(l))
	c.End(0)
	assert.Empty(t, counts(c))
}

func TestNewRefusesABadQuantumOrWeight(t *testing.T) {
	_, err := New(0, nil)
	assert.Error(t, err)
	_, err = New(time.Millisecond, map[string]int{"a": 0})
	assert.Error(t, err)
}

// counts returns the counts of l's keys.
func counts(l *Line) map[string]Count {
	out := map[string]Count{}
	l.AddCounts(out)
	return out
}

func TestANilLineHoldsNothing(t *testing.T) {
	var l *Line
	l.Work(1, time.Second)
	l.End(1)
	assert.Zero(t, l.Len())
	assert.Empty(t, counts(l))
}
