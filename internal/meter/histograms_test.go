package meter_test

import (
	"context"
	"testing"
	"time"

	"github.com/evolvekit/evolve/internal/meter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// points returns the data points of the histogram name in sm, by agent.
func points(t *testing.T, sm []metricdata.ScopeMetrics, name string) map[string]metricdata.HistogramDataPoint[float64] {
	t.Helper()
	out := map[string]metricdata.HistogramDataPoint[float64]{}
	for _, s := range sm {
		assert.Equal(t, meter.Name, s.Scope.Name)
		for _, m := range s.Metrics {
			if m.Name != name {
				continue
			}
			assert.Equal(t, "s", m.Unit)
			h, ok := m.Data.(metricdata.Histogram[float64])
			require.True(t, ok, "%s is a histogram", name)
			assert.Equal(t, metricdata.CumulativeTemporality, h.Temporality)
			for _, p := range h.DataPoints {
				a, _ := p.Attributes.Value("agent")
				out[a.AsString()] = p
			}
		}
	}
	return out
}

func TestAgentsTallyTheirHistogramsAndEndedOnesStayCounted(t *testing.T) {
	hist := meter.NewHistograms()
	m, err := meter.New(nil, hist)
	require.NoError(t, err)
	defer m.Close()
	a, b := m.Agent("fetch"), m.Agent("fetch")
	a.Worked(2 * time.Millisecond)
	a.Worked(3 * time.Millisecond)
	b.Worked(7 * time.Millisecond)
	a.Waited(15*time.Microsecond, 4)
	b.Close()

	sm, err := hist.Produce(context.Background())
	require.NoError(t, err)
	work := points(t, sm, "evolve.work.duration")["fetch"]
	assert.Equal(t, uint64(3), work.Count, "two agents of one name make one data point")
	assert.InDelta(t, 0.012, work.Sum, 1e-12)
	require.Len(t, work.BucketCounts, len(work.Bounds)+1)
	at := func(bound float64) uint64 {
		for i, b := range work.Bounds {
			if b == bound {
				return work.BucketCounts[i]
			}
		}
		t.Fatalf("no bucket of %g", bound)
		return 0
	}
	assert.Equal(t, uint64(1), at(2e-3), "a bucket holds its upper bound")
	assert.Equal(t, uint64(1), at(5e-3))
	assert.Equal(t, uint64(1), at(10e-3), "the ended agent is still counted")
	lo, _ := work.Min.Value()
	hi, _ := work.Max.Value()
	assert.InDelta(t, 0.002, lo, 1e-12)
	assert.InDelta(t, 0.007, hi, 1e-12)

	wait := points(t, sm, "evolve.queue.wait")["fetch"]
	assert.Equal(t, uint64(4), wait.Count, "each of the items that waited")
	assert.InDelta(t, 60e-6, wait.Sum, 1e-12)
}

func TestAnAgentThatMeasuredNothingHasNoDataPoint(t *testing.T) {
	hist := meter.NewHistograms()
	m, err := meter.New(nil, hist)
	require.NoError(t, err)
	defer m.Close()
	m.Agent("idle").Worked(time.Millisecond)
	sm, err := hist.Produce(context.Background())
	require.NoError(t, err)
	assert.Contains(t, points(t, sm, "evolve.work.duration"), "idle")
	assert.NotContains(t, points(t, sm, "evolve.queue.wait"), "idle")
}

func TestNothingIsProducedBeforeAnAgentMeasures(t *testing.T) {
	hist := meter.NewHistograms()
	m, err := meter.New(nil, hist)
	require.NoError(t, err)
	defer m.Close()
	m.Agent("idle")
	sm, err := hist.Produce(context.Background())
	require.NoError(t, err)
	assert.Empty(t, sm)
}
