package sim_test

import (
	"testing"
	"time"

	"github.com/evolvekit/evolve/sim"
	"github.com/stretchr/testify/assert"
)

func TestHistogramQuantilesAreWithinTwoPercent(t *testing.T) {
	var h sim.Histogram
	assert.Zero(t, h.Quantile(0.5))
	assert.Zero(t, h.Mean())
	for i := 1; i <= 100000; i++ {
		h.Add(time.Duration(i) * time.Microsecond)
	}
	assert.Equal(t, int64(100000), h.Count())
	for _, q := range []float64{0.01, 0.5, 0.9, 0.99, 0.999} {
		want := time.Duration(q * 100000 * float64(time.Microsecond))
		assert.InEpsilon(t, want, h.Quantile(q), 0.02, "q=%v", q)
		assert.LessOrEqual(t, h.Quantile(q), want, "a bucket's lower bound")
	}
	assert.Equal(t, time.Microsecond, h.Quantile(0))
	assert.InEpsilon(t, 100*time.Millisecond, h.Quantile(1), 0.02)
	assert.Equal(t, 50000500*time.Nanosecond, h.Mean())
}

func TestHistogramIsExactForSmallValuesAndCountsNegativesAsZero(t *testing.T) {
	var h sim.Histogram
	for _, d := range []time.Duration{-5, 0, 3, 63} {
		h.Add(d)
	}
	assert.Equal(t, time.Duration(0), h.Quantile(0.25))
	assert.Equal(t, time.Duration(3), h.Quantile(0.75))
	assert.Equal(t, time.Duration(63), h.Quantile(1))
	h.Add(1 << 62)
	assert.Equal(t, time.Duration(1<<62), h.Quantile(1))
}
