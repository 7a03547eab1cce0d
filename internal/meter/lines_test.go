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

func TestAnAgentsLinesAreObservedByTag(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	m, err := meter.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)), nil)
	require.NoError(t, err)
	defer m.Close()
	m.Agent("plain").Publish(meter.Snapshot{Queued: 1})
	m.Agent("send").Publish(meter.Snapshot{Lines: []meter.Line{{Tag: "", Desired: 2, Backlog: 7}, {Tag: "gpu", Desired: 0}}})

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	got := map[string]map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, md := range sm.Metrics {
			d, ok := md.Data.(metricdata.Gauge[int64])
			if !ok || md.Name != "evolve.desired_workers" && md.Name != "evolve.backlog" {
				continue
			}
			for _, p := range d.DataPoints {
				agent, _ := p.Attributes.Value("agent")
				tag, ok := p.Attributes.Value("tag")
				require.True(t, ok, "every point has a tag")
				if got[md.Name] == nil {
					got[md.Name] = map[string]int64{}
				}
				got[md.Name][agent.AsString()+"/"+tag.AsString()] = p.Value
			}
		}
	}
	assert.Equal(t, map[string]map[string]int64{
		"evolve.desired_workers": {"send/": 2, "send/gpu": 0},
		"evolve.backlog":         {"send/": 7, "send/gpu": 0},
	}, got, "an agent without lines has none")
}
