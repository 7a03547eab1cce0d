//go:build !race

package remote_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// wants keeps what a stage's OnWant was told, in order.
type wants struct {
	mu    sync.Mutex
	calls []string
	last  map[string]int
}

func (w *wants) on(tag string, n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, fmt.Sprintf("%q=%d", tag, n))
	if prev, ok := w.last[tag]; ok && prev == n {
		w.calls = append(w.calls, "(no change)")
	}
	w.last[tag] = n
}

// byTag returns the value of every data point of the gauge named name of
// the agent named agentName, by its tag attribute.
func byTag(rm metricdata.ResourceMetrics, name, agentName string) map[string]int64 {
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			g, ok := m.Data.(metricdata.Gauge[int64])
			if m.Name != name || !ok {
				continue
			}
			for _, p := range g.DataPoints {
				if a, _ := p.Attributes.Value("agent"); a.AsString() == agentName {
					tag, _ := p.Attributes.Value(attribute.Key("tag"))
					out[tag.AsString()] = p.Value
				}
			}
		}
	}
	return out
}

func TestAStagePublishesTheWorkersItWantsByTag(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	node, rt := nodeAndRuntime(t, agent.WithMeterProvider(mp))
	told := &wants{last: map[string]int{}}
	c := newCollector()
	gpu := func(v int) string {
		if v%2 == 1 {
			return "gpu"
		}
		return ""
	}
	h, err := remote.New[int, job](rt, remote.Config[int]{Node: node, Name: "scaled", Tag: gpu, OnWant: told.on}, c.sink)
	require.NoError(t, err)

	// No worker yet: each tag's items are queued, and each wants one.
	post(t, h, 0, 10)
	eventually(t, h, 10*time.Second, "each tag wants a worker", func(s remote.Status) bool {
		return s.Want[""] == 1 && s.Want["gpu"] == 1
	})
	var rm metricdata.ResourceMetrics
	require.Eventually(t, func() bool {
		require.NoError(t, reader.Collect(context.Background(), &rm))
		return len(byTag(rm, "evolve.desired_workers", "scaled")) == 2
	}, 10*time.Second, 5*time.Millisecond, "the gauge is published for each tag")
	assert.Equal(t, map[string]int64{"": 1, "gpu": 1}, byTag(rm, "evolve.desired_workers", "scaled"))
	assert.Equal(t, map[string]int64{"": 5, "gpu": 5}, byTag(rm, "evolve.backlog", "scaled"))

	// A worker with the tag takes them all; its tasks' time is measured.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ended := make(chan error, 1)
	go func() {
		ended <- remote.Work(ctx, remote.WorkerConfig{Master: node.Addr(), Stage: "scaled", Slots: 4, Tags: []string{"gpu"}},
			func(_ context.Context, v int) (job, error) { return job{V: 2 * v}, nil })
	}()
	c.await(t, 10, 10*time.Second)
	st := status(t, h)
	assert.Zero(t, st.Queued)
	for _, tag := range []string{"", "gpu"} {
		assert.Positive(t, st.Service[tag], "tag %q: the time a task held a slot, round trip included", tag)
		assert.Positive(t, st.Arrivals[tag], "tag %q: items came within the rate's window", tag)
		assert.Equal(t, 1, st.Want[tag], "tag %q: a worker, while items came within the window", tag)
	}
	finish(t, h)
	cancel()
	require.NoError(t, <-ended)

	told.mu.Lock()
	defer told.mu.Unlock()
	assert.NotContains(t, told.calls, "(no change)", "OnWant is told of changes only: %v", told.calls)
	assert.Equal(t, map[string]int{"": 0, "gpu": 0}, told.last, "and of none wanted once the stage finished: %v", told.calls)
	final, err := h.Status(context.Background())
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"": 0, "gpu": 0}, final.Want)
}
