package meter_test

import (
	"context"
	"testing"

	"github.com/evolvekit/evolve/internal/meter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// collect returns the int64 points of the instrument named, by agent.
func collect(t *testing.T, reader *sdkmetric.ManualReader, name string) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, md := range sm.Metrics {
			if md.Name != name {
				continue
			}
			var points []metricdata.DataPoint[int64]
			switch d := md.Data.(type) {
			case metricdata.Sum[int64]:
				points = d.DataPoints
			case metricdata.Gauge[int64]:
				points = d.DataPoints
			}
			for _, p := range points {
				agent, _ := p.Attributes.Value("agent")
				got[agent.AsString()] = p.Value
			}
		}
	}
	return got
}

// Agents started per request under one name make one counter that only
// grows, as a Prometheus counter must for rate() to hold, whether they
// run one at a time or several at once; the gauges of one that ended go.
func TestCountersCountOnAcrossTheAgentsOfAName(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	m, err := meter.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)), nil)
	require.NoError(t, err)
	defer m.Close()

	first := m.Agent("req")
	first.Publish(meter.Snapshot{In: 3, Out: 3, Queued: 1})
	assert.Equal(t, map[string]int64{"req": 3}, collect(t, reader, "evolve.items.in"))
	first.Close()
	assert.Equal(t, map[string]int64{"req": 3}, collect(t, reader, "evolve.items.in"), "kept once it ended")
	assert.Empty(t, collect(t, reader, "evolve.queued"), "its gauges go with it")

	second, third := m.Agent("req"), m.Agent("req")
	second.Publish(meter.Snapshot{In: 2, Out: 1, Failed: 1})
	third.Publish(meter.Snapshot{In: 5, Queued: 4})
	assert.Equal(t, map[string]int64{"req": 10}, collect(t, reader, "evolve.items.in"), "3 + 2 + 5")
	assert.Equal(t, map[string]int64{"req": 1}, collect(t, reader, "evolve.items.failed"))
	second.Close()
	third.Close()
	third.Close() // twice counts once
	assert.Equal(t, map[string]int64{"req": 10}, collect(t, reader, "evolve.items.in"))
	assert.Equal(t, map[string]int64{"req": 4}, collect(t, reader, "evolve.items.out"))
}
