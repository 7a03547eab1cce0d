package bench_test

import (
	"context"
	"testing"

	"github.com/evolvekit/evolve/agent"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// BenchmarkTrace is BenchmarkChain's evolve chain (rate, parallel of limit
// 4, buffer of 100) with tracing off, and on with an SDK tracer provider
// whose spans go to a batch processor and an exporter that drops them: every
// item sampled (AlwaysSample), one in a hundred (TraceIDRatioBased(0.01)),
// and none (NeverSample). Each item makes three stage spans and an attempt
// span; each batch one span with a hundred links.
func BenchmarkTrace(b *testing.B) {
	b.Run("off", chainEvolve)
	b.Run("always", func(b *testing.B) { chainTraced(b, sdktrace.AlwaysSample()) })
	b.Run("ratio-0.01", func(b *testing.B) { chainTraced(b, sdktrace.TraceIDRatioBased(0.01)) })
	b.Run("never", func(b *testing.B) { chainTraced(b, sdktrace.NeverSample()) })
}

func chainTraced(b *testing.B, sampler sdktrace.Sampler) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sampler), sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	defer tp.Shutdown(context.Background())
	chainEvolveOn(b, nil, agent.WithTracerProvider(tp))
}
