package trace_test

import (
	"context"
	"fmt"

	"github.com/evolvekit/evolve/internal/trace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// Two agents in a row: the first passes its item on one for one, the
// second takes it with its context, so its span is a child of the first's.
func Example() {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t := trace.New(tp)
	first, second := trace.NewLine(t, "first", false), trace.NewLine(t, "second", false)

	first.Accept(first.Begin(context.Background()))
	first.EmitNext()
	first.Pass(second.Hand())
	second.Arrive(1)
	second.EmitNext()
	second.Pass(nil) // to a sink

	spans := exp.GetSpans()
	fmt.Println(spans[0].Name, spans[1].Name, spans[1].Parent.SpanID() == spans[0].SpanContext.SpanID())
	// Output: process first process second true
}
