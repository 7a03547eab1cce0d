package agent_test

import (
	"context"
	"fmt"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/parallel"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// The agents count their histograms themselves; a reader that has the
// producer reads them with the instruments of the meter provider.
func ExampleWithHistograms() {
	hist := agent.NewHistograms()
	reader := sdkmetric.NewManualReader(sdkmetric.WithProducer(hist))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	rt := agent.NewRuntime(agent.WithMeterProvider(mp), agent.WithHistograms(hist))
	defer rt.Shutdown(context.Background())

	h, err := parallel.New(rt, parallel.Config{Name: "double", Limit: 2}, func(_ context.Context, v int) (int, error) {
		return 2 * v, nil
	}, nil)
	if err != nil {
		panic(err)
	}
	for i := range 3 {
		if err := h.Post(context.Background(), i); err != nil {
			panic(err)
		}
	}
	h.Close()
	if err := h.Wait(context.Background()); err != nil {
		panic(err)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		panic(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if d, ok := m.Data.(metricdata.Histogram[float64]); ok && m.Name == "evolve.queue.wait" {
				for _, p := range d.DataPoints {
					name, _ := p.Attributes.Value("agent")
					fmt.Println(m.Name, name.AsString(), p.Count)
				}
			}
		}
	}
	// Output:
	// evolve.queue.wait double 3
}
