package traced_test

import (
	"context"
	"fmt"

	"github.com/evolvekit/evolve/durable/internal/traced"
	"github.com/nats-io/nats.go"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// An item's message carries the context of the span of its publish, and
// the process that takes it reads it back.
func Example() {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	p := traced.New(tp, "orders.items")

	m := &nats.Msg{Subject: "orders.items", Header: nats.Header{}}
	span := p.Start(context.Background(), m)
	span.End()

	ctx := traced.Extract(context.Background(), m.Header)
	sc := trace.SpanContextFromContext(ctx)
	fmt.Println(exp.GetSpans()[0].Name, len(m.Header.Get(traced.Traceparent)), sc.SpanID() == span.SpanContext().SpanID(), sc.IsRemote())
	// Output: publish orders.items 55 true true
}
