package batchwork

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSparesReuseAClearedSlice(t *testing.T) {
	p := newSpares[result]()
	s := p.get(3)
	assert.Len(t, s, 3)
	s[0], s[2] = result{Seq: 1, Value: 2}, result{Err: errors.New("x")}
	p.put(s)
	again := p.get(2)
	assert.Len(t, again, 2)
	assert.Same(t, &s[0], &again[0], "the slice taken back is given again")
	assert.Equal(t, []result{{}, {}, {}}, again[:3], "it holds no result of before")
}

func TestSparesMakeASliceWhenNoneFits(t *testing.T) {
	p := newSpares[result]()
	p.put(make([]result, 2))
	s := p.get(5)
	assert.Len(t, s, 5, "a spare too small is not used")
	assert.Empty(t, p, "and it is let go")
	for range kept + 3 {
		p.put(make([]result, 1))
	}
	assert.Len(t, p, kept, "spares holds at most kept slices")
}

func TestSpecRecyclesResultsForTheNextBatch(t *testing.T) {
	p := testAgent(0, func(_ context.Context, v int) (int, error) { return v + 1, nil })
	sp := p.spec()
	first, err := sp.Work(context.Background(), 0, []int{1, 2})
	assert.NoError(t, err)
	assert.Equal(t, []result{{Seq: 0, Value: 2}, {Seq: 1, Value: 3}}, first)
	sp.Recycle(first)
	next, err := sp.Work(context.Background(), 2, []int{5})
	assert.NoError(t, err)
	assert.Same(t, &first[0], &next[0], "the next batch's results reuse the slice taken back")
	assert.Equal(t, []result{{Seq: 2, Value: 6}}, next)
}
