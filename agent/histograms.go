package agent

import (
	"context"

	"github.com/evolvekit/evolve/internal/meter"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// Histograms produces the histograms evolve.work.duration and
// evolve.queue.wait of the runtimes made with [WithHistograms], for an
// OpenTelemetry SDK reader it is registered on as a producer
// (go.opentelemetry.io/otel/sdk/metric.WithProducer).
//
// Without it, a runtime with [WithMeterProvider] records every work's
// duration and every item's wait through an OpenTelemetry histogram, about
// 85 ns each: three waits an item in a chain of three agents. With it, each
// agent counts them itself in plain memory, exactly, for a few nanoseconds,
// and a collection reads the agents' bucket counts. The histograms are
// cumulative from NewHistograms, one data point per agent name, with the
// buckets WithMeterProvider describes; an agent that has ended is still
// counted. The meter provider's views do not apply to them.
//
// It is safe for concurrent use, and may serve several runtimes.
type Histograms struct {
	h *meter.Histograms
}

// NewHistograms returns a producer of histograms for runtimes to come.
func NewHistograms() *Histograms {
	return &Histograms{h: meter.NewHistograms()}
}

// Produce returns the histograms as they stand. It implements
// go.opentelemetry.io/otel/sdk/metric.Producer.
func (h *Histograms) Produce(ctx context.Context) ([]metricdata.ScopeMetrics, error) {
	return h.h.Produce(ctx)
}

// WithHistograms makes the runtime's agents count their histograms for h
// to produce (see [Histograms]), rather than record them through the meter
// provider of [WithMeterProvider]. Alone, without a meter provider, the
// runtime measures its histograms and nothing else.
func WithHistograms(h *Histograms) Option {
	return func(rt *Runtime) { rt.histograms = h }
}
