package remote

import (
	"testing"
	"time"

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
