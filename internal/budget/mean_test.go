package budget_test

import (
	"testing"
	"time"

	"github.com/evolvekit/evolve/internal/budget"
	"github.com/stretchr/testify/assert"
)

func TestMean(t *testing.T) {
	for _, c := range []struct {
		name string
		obs  []time.Duration
		want time.Duration
	}{
		{"one observation", []time.Duration{8 * ms}, 8 * ms},
		{"the plain mean of the first four", []time.Duration{ms, 2 * ms, 3 * ms, 6 * ms}, 3 * ms},
		{"then each moves it a quarter of the way", []time.Duration{4 * ms, 4 * ms, 4 * ms, 4 * ms, 8 * ms}, 5 * ms},
		{"and again", []time.Duration{4 * ms, 4 * ms, 4 * ms, 4 * ms, 8 * ms, 9 * ms}, 6 * ms},
		{"rounded to the nanosecond", []time.Duration{1, 2}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			var m budget.Mean
			for _, d := range c.obs {
				m = m.Observe(d)
			}
			got, ok := m.Value()
			assert.True(t, ok)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestTheZeroMeanHoldsNothing(t *testing.T) {
	d, ok := budget.Mean{}.Value()
	assert.False(t, ok)
	assert.Zero(t, d)
}

func TestAtLeastOnlyRaisesTheMean(t *testing.T) {
	m := budget.Mean{}.AtLeast(4 * ms)
	got, ok := m.Value()
	assert.True(t, ok, "a first lower bound is an observation")
	assert.Equal(t, 4*ms, got)
	m = m.AtLeast(2 * ms)
	got, _ = m.Value()
	assert.Equal(t, 4*ms, got, "a bound below the mean says nothing")
	m = m.AtLeast(8 * ms)
	got, _ = m.Value()
	assert.Equal(t, 6*ms, got, "a bound above it is observed")
}

func TestObserveLeavesTheMeanItWasGivenUntouched(t *testing.T) {
	m := budget.Mean{}.Observe(ms)
	_ = m.Observe(9 * ms)
	got, _ := m.Value()
	assert.Equal(t, ms, got)
}
