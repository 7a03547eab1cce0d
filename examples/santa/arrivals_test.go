package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestTheSameSeedBringsTheSameBatches(t *testing.T) {
	a := arrivals(3, time.Second, 100*time.Millisecond, 10)
	assert.Equal(t, a, arrivals(3, time.Second, 100*time.Millisecond, 10))
	assert.NotEqual(t, a, arrivals(4, time.Second, 100*time.Millisecond, 10))
	assert.Len(t, a, 10)
	for i, b := range a {
		assert.Equal(t, time.Duration(i)*100*time.Millisecond, b.at)
		assert.GreaterOrEqual(t, b.n, 0)
		assert.LessOrEqual(t, b.n, 10)
	}
	assert.Len(t, arrivals(3, 1001*time.Millisecond, 100*time.Millisecond, 10), 11, "a batch at 1s, before the end")
	assert.Zero(t, total(arrivals(3, time.Second, 100*time.Millisecond, 0)))
}

func TestBatchSizesAreSpreadEvenly(t *testing.T) {
	a := arrivals(1, 10000*time.Second, time.Second, 4)
	counts := make([]int, 5)
	for _, b := range a {
		counts[b.n]++
	}
	for size, c := range counts {
		assert.InDelta(t, 2000, c, 200, "size %d", size)
	}
}
