package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestQuantileIsTheNearestRank(t *testing.T) {
	ts := []time.Duration{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	assert.Equal(t, time.Duration(5), quantile(ts, 0.5))
	assert.Equal(t, time.Duration(10), quantile(ts, 0.99))
	assert.Equal(t, time.Duration(1), quantile(ts, 0))
	assert.Zero(t, quantile(nil, 0.5))
}

func TestMeanRunningWeighsEachSampleUntilTheNext(t *testing.T) {
	ss := []sample{{at: 0, running: 4}, {at: 10, running: 0}, {at: 40, running: 2}, {at: 50, running: 9}}
	assert.InDelta(t, (4*10+0*30+2*10)/50.0, meanRunning(ss, 0, 50), 1e-9)
	assert.InDelta(t, 1.0, meanRunning(ss, 30, 50), 1e-9, "0 until 40, then 2")
	assert.InDelta(t, 9.0, meanRunning(ss, 60, 70), 1e-9, "the last sample holds on")
	assert.Zero(t, meanRunning(ss, -10, 0), "no sample before the first")
}
