package remote

import (
	"strings"
	"testing"
	"time"

	"github.com/evolvekit/evolve/remote/internal/census"
	"github.com/evolvekit/evolve/remote/internal/fairline"
	"github.com/stretchr/testify/assert"
)

func TestWorkerConfigRejectsABadPrefetchOrGrace(t *testing.T) {
	for _, c := range []struct {
		cfg  WorkerConfig
		want string
	}{
		{WorkerConfig{Master: "m", Prefetch: -2}, "remote: prefetch must be NoPrefetch (-1), 0 for the default or positive, got -2"},
		{WorkerConfig{Master: "m", Grace: -time.Second}, "remote: grace must not be negative, got -1s"},
	} {
		err := c.cfg.validate()
		assert.EqualError(t, err, c.want)
		assert.ErrorIs(t, err, ErrConfig)
	}
}

func TestWorkerConfigDefaultsPrefetchToItsSlots(t *testing.T) {
	c := WorkerConfig{Master: "m", Slots: 3}.withDefaults()
	assert.Equal(t, 3, c.Prefetch)
	assert.Equal(t, DefaultGrace, c.Grace)
	assert.Zero(t, WorkerConfig{Master: "m", Slots: 3, Prefetch: NoPrefetch}.withDefaults().Prefetch)
	assert.Equal(t, 7, WorkerConfig{Master: "m", Slots: 3, Prefetch: 7}.withDefaults().Prefetch)
}

func TestTheMasterGrantsItsMaxPrefetch(t *testing.T) {
	assert.Equal(t, DefaultMaxPrefetch, Config[int]{}.grant())
	assert.Zero(t, Config[int]{MaxPrefetch: NoPrefetch}.grant())
	assert.Equal(t, 5, Config[int]{MaxPrefetch: 5}.grant())
}
func TestConfigRejectsASettingOutOfRange(t *testing.T) {
	for _, c := range []struct {
		cfg  Config[string]
		want string
	}{
		{Config[string]{Queue: -1}, "remote: queue must not be negative, got -1"},
		{Config[string]{Window: -2}, "remote: window must not be negative, got -2"},
		{Config[string]{MaxBatch: -3}, "remote: max batch must not be negative, got -3"},
		{Config[string]{MaxAttempts: -4}, "remote: max attempts must not be negative, got -4"},
		{Config[string]{Lease: -time.Second}, "remote: lease must not be negative, got -1s"},
		{Config[string]{TagWait: -time.Minute}, "remote: tag wait must not be negative, got -1m0s"},
		{Config[string]{Heartbeat: -time.Second}, "remote: heartbeat must be at least 1ms, got -1s"},
		{Config[string]{Heartbeat: time.Microsecond}, "remote: heartbeat must be at least 1ms, got 1µs"},
		{Config[string]{MaxPrefetch: -2}, "remote: max prefetch must be NoPrefetch (-1), 0 for the default or positive, got -2"},
		{Config[string]{Quantum: -time.Millisecond}, "remote: quantum must not be negative, got -1ms"},
		{Config[string]{Key: strings.ToLower}, "remote: a key needs Unordered: in input order one key's slow item would hold back every key's results"},
		{Config[string]{Weights: map[string]int{"a": 2}}, "remote: weights need a key"},
		{Config[string]{Key: strings.ToLower, Unordered: true, Weights: map[string]int{"a": 2, "b": 0, "c": -1}},
			`remote: the weight of key "b" must be at least 1, got 0`},
	} {
		c.cfg.Node = &Node{}
		_, err := build[string, int](c.cfg)
		assert.EqualError(t, err, c.want)
		assert.ErrorIs(t, err, ErrConfig)
	}
}

func TestTheBookTakesTheDefaultsOfConfig(t *testing.T) {
	b := bookConfig[string, int](Config[string]{}.withDefaults())
	assert.Equal(t, DefaultWindow, b.Window)
	assert.Equal(t, DefaultMaxBatch, b.MaxBatch)
	assert.Equal(t, DefaultMaxAttempts, b.MaxAttempts)
	assert.Equal(t, DefaultMaxPrefetch, b.Prefetch)
	assert.Equal(t, DefaultLease, b.Lease)
	assert.Equal(t, DefaultTagWait, b.TagWait)
	assert.Equal(t, DefaultHeartbeat, b.Heartbeat)
	assert.Equal(t, 3*DefaultHeartbeat, b.Silence, "three heartbeats of silence")
	assert.Equal(t, Result[int]{Seq: 4, Value: 8}, b.Result(4, 8, nil, nil))
	assert.Equal(t, DefaultMaxMoves, b.MaxMoves)
	assert.Nil(t, b.Key, "no keys: first come, first served")
	assert.Equal(t, time.Millisecond, b.Quantum)
}

func TestStatusCountsTheKeys(t *testing.T) {
	st := statusOf(census.Snapshot{Keys: map[string]fairline.Count{"a": {Queued: 2, Started: 3, Weight: 2}, "b": {Started: 1, Weight: 1}}})
	assert.Equal(t, map[string]int{"a": 2, "b": 0}, st.Keys)
	assert.Equal(t, map[string]int{"a": 3, "b": 1}, st.Started)
	assert.Equal(t, map[string]int{"a": 2, "b": 1}, st.Weights)
	st = statusOf(census.Snapshot{})
	assert.Nil(t, st.Keys, "no keys: no maps")
	assert.Nil(t, st.Started)
}
