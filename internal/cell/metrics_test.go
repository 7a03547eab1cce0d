package cell_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// itemsIn collects reader and returns the echo agent's evolve.items.in, or
// -1 when it is not observed.
func itemsIn(t *testing.T, reader *sdkmetric.ManualReader) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if s, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == "evolve.items.in" {
				for _, p := range s.DataPoints {
					if a, _ := p.Attributes.Value("agent"); a.AsString() == "echo" {
						return p.Value
					}
				}
			}
		}
	}
	return -1
}

// An agent publishes its status at most once a millisecond: the rounds
// that follow a publication within it are published by a timer, once it
// has passed, even though the agent has gone idle.
func TestAnAgentPublishesItsLastRoundWithinAMillisecond(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		h, err := spawnEcho(rt, 4, nil, func(int) {})
		require.NoError(t, err)
		ctx := context.Background()
		for i := 1; i <= 3; i++ {
			require.NoError(t, h.Post(ctx, i))
			synctest.Wait() // one round each, all at the bubble's first instant
		}
		assert.Less(t, itemsIn(t, reader), int64(3), "the rounds after the first wait for their millisecond")
		time.Sleep(time.Millisecond)
		synctest.Wait()
		assert.Equal(t, int64(3), itemsIn(t, reader), "the timer brought the last round's status")
		h.Close()
		require.NoError(t, h.Wait(ctx))
	}, agent.WithMeterProvider(mp))
}
