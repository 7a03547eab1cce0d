package meter_test

import (
	"context"
	"fmt"
	"time"

	"github.com/evolvekit/evolve/internal/meter"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// An agent publishes its state; a collection observes what it published
// last, with the agent's name; once the agent is closed, it is observed no
// more.
func Example() {
	reader := sdkmetric.NewManualReader()
	m, err := meter.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)), nil)
	if err != nil {
		panic(err)
	}
	defer m.Close()
	g := m.Agent("fetch")
	g.Publish(meter.Snapshot{In: 10, Out: 7, Queued: 1, InFlight: 2, Limit: 2, Unbounded: true})
	g.Worked(30 * time.Millisecond)

	show := func() {
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(context.Background(), &rm); err != nil {
			panic(err)
		}
		for _, sm := range rm.ScopeMetrics {
			for _, md := range sm.Metrics {
				if d, ok := md.Data.(metricdata.Gauge[int64]); ok && md.Name == "evolve.in_flight" {
					for _, p := range d.DataPoints {
						agent, _ := p.Attributes.Value("agent")
						fmt.Println(md.Name, agent.AsString(), p.Value)
					}
				}
			}
		}
	}
	show()
	g.Close()
	show()
	// Output:
	// evolve.in_flight fetch 2
}
