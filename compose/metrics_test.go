package compose_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// points returns the value of every data point of the instrument named
// name, by the agent attribute of the point: a histogram's count.
func points(t *testing.T, rm metricdata.ResourceMetrics, name string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	agentOf := func(set attribute.Set) string {
		v, _ := set.Value("agent")
		return v.AsString()
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					out[agentOf(p.Attributes)] = float64(p.Value)
				}
			case metricdata.Gauge[float64]:
				for _, p := range d.DataPoints {
					out[agentOf(p.Attributes)] = p.Value
				}
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out[agentOf(p.Attributes)] = float64(p.Value)
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out[agentOf(p.Attributes)] = float64(p.Count)
				}
			}
		}
	}
	return out
}

func TestAChainPublishesEveryAgentsStatusAsMetrics(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		release := make(chan struct{})
		pace, err := rate.Stage(rate.Config[int]{Name: "pace", Rate: 1000, Burst: 5})
		require.NoError(t, err)
		work, err := parallel.Stage(parallel.Config{Name: "work", Limit: 2, MaxBatch: 1}, func(ctx context.Context, v int) (int, error) {
			<-release
			return v, nil
		})
		require.NoError(t, err)
		files, err := buffer.Stage(buffer.Config[int]{Name: "files", Size: 5}, nil)
		require.NoError(t, err)
		var got [][]int
		c, err := compose.Start(rt, compose.Pipe3(pace, work, files), func(b []int) { got = append(got, b) })
		require.NoError(t, err)
		postRange(t, c, 20)
		synctest.Wait() // two items in flight, the others waiting
		// An agent publishes at most once a millisecond: a millisecond of
		// the bubble's clock lets the last rounds' publications out.
		time.Sleep(time.Millisecond)
		synctest.Wait()

		var rm metricdata.ResourceMetrics
		require.NoError(t, reader.Collect(context.Background(), &rm))
		assert.Equal(t, map[string]float64{"work": 2}, points(t, rm, "evolve.limit"))
		assert.Equal(t, 2.0, points(t, rm, "evolve.in_flight")["work"])
		assert.Contains(t, points(t, rm, "evolve.tokens"), "pace")
		queued := points(t, rm, "evolve.queued")
		for _, name := range []string{"pace", "work", "files"} {
			assert.Contains(t, queued, name, "every agent's gauges")
		}
		assert.Positive(t, points(t, rm, "evolve.items.in")["pace"])
		assert.Positive(t, points(t, rm, "evolve.queue.wait")["pace"], "waits recorded as items leave the queue")

		close(release)
		c.Close()
		require.NoError(t, c.Wait(context.Background()))
		require.NoError(t, reader.Collect(context.Background(), &rm))
		assert.Empty(t, points(t, rm, "evolve.queued"), "an agent that ended is observed no more")
		assert.Equal(t, map[string]float64{"pace": 20, "work": 20, "files": 20}, points(t, rm, "evolve.items.in"),
			"but its counters keep what it counted, by name")
		assert.Equal(t, map[string]float64{"pace": 20, "work": 20, "files": 4}, points(t, rm, "evolve.items.out"))
		assert.Equal(t, 20.0, points(t, rm, "evolve.work.duration")["work"], "one piece of work per item")
	}, agent.WithMeterProvider(mp))
}
