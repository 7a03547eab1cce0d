package durable_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	oteltrace "go.opentelemetry.io/otel/trace"
)

// spansNamed returns the spans of exp named name.
func spansNamed(exp *tracetest.InMemoryExporter, name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range exp.GetSpans() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// consumeTraced runs a chain of one parallel stage, "work", traced by
// tp, on q until it is empty; with again, its sink fails each item the
// first time, so that it goes back to the queue, and is taken again.
func consumeTraced(t *testing.T, q *durable.Queue[int], tp oteltrace.TracerProvider, again bool) {
	t.Helper()
	ctx := context.Background()
	rt := agent.NewRuntime(agent.WithTracerProvider(tp))
	defer func() { _ = rt.Shutdown(ctx) }()
	work, err := parallel.Stage(parallel.Config{Name: "work", Limit: 2}, durable.Map(func(_ context.Context, v int) (int, error) { return v, nil }))
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]bool{}
	chain, err := compose.Start(rt, work, durable.Sink(q, func(it durable.Item[int]) error {
		if again && !failed[it.Key] {
			failed[it.Key] = true
			return errors.New("not now")
		}
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := durable.Consume(ctx, q, chain, durable.WithUntilEmpty()); err != nil {
		t.Fatalf("Consume: %v", err)
	}
}

// TestAddedItemsAreFollowedIntoTheChain: a queue with a tracer provider
// starts a span "publish" for each item Add and AddMany add, a child of
// the span of the context given; the item's first span in the chain that
// takes it is a child of it, at each delivery: an item handed back and
// taken again is in the same trace.
func TestAddedItemsAreFollowedIntoTheChain(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	q, err := durable.Open[int](durable.Embedded{Dir: t.TempDir()}, durable.Config{Name: "traced", TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	ctx, produce := tp.Tracer("test").Start(context.Background(), "produce")
	if err := q.Add(ctx, "k0", 0); err != nil {
		t.Fatal(err)
	}
	if err := q.AddMany(ctx, keyed(3)[1:]); err != nil {
		t.Fatal(err)
	}
	if err := q.Add(ctx, "k0", 0); err != nil { // the same key: nothing added, no failure
		t.Fatal(err)
	}
	produce.End()

	pubs := spansNamed(exp, "publish traced.items")
	if len(pubs) != 4 {
		t.Fatalf("%d publish spans; want 4", len(pubs))
	}
	byID := map[oteltrace.SpanID]bool{}
	for _, p := range pubs {
		if p.Parent.SpanID() != produce.SpanContext().SpanID() || p.SpanKind != oteltrace.SpanKindProducer {
			t.Errorf("publish span %v: parent %v, kind %v; want the producer's child, a producer", p.SpanContext.SpanID(), p.Parent.SpanID(), p.SpanKind)
		}
		for _, want := range []attribute.KeyValue{attribute.String("messaging.system", "nats"), attribute.String("messaging.operation", "publish")} {
			if !hasAttr(p, want) {
				t.Errorf("publish span without %v", want)
			}
		}
		if p.Status.Code.String() != "Unset" {
			t.Errorf("a publish span has status %v", p.Status)
		}
		byID[p.SpanContext.SpanID()] = true
	}

	consumeTraced(t, q, tp, true)
	consumeTraced(t, q, tp, false) // what the first left after its backoff
	process := spansNamed(exp, "process work")
	if len(process) != 6 {
		t.Fatalf("%d process spans; want 6, two deliveries of three items", len(process))
	}
	parents := map[oteltrace.SpanID]int{}
	for _, s := range process {
		if !byID[s.Parent.SpanID()] || s.SpanContext.TraceID() != produce.SpanContext().TraceID() {
			t.Errorf("process span %v has parent %v; want an item's publish span", s.SpanContext.SpanID(), s.Parent.SpanID())
		}
		parents[s.Parent.SpanID()]++
	}
	if len(parents) != 3 {
		t.Errorf("the process spans have %d parents; want the 3 items' publish spans, each delivery of an item under its own", len(parents))
	}
}

// TestAQueueWithoutATracerCarriesTheContextOfItsAdd: without a tracer
// provider of its own the queue carries the span of the context given to
// Add; an item added under none starts a new trace in the chain.
func TestAQueueWithoutATracerCarriesTheContextOfItsAdd(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	q, err := durable.Open[int](durable.Embedded{Dir: t.TempDir()}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	ctx, produce := tp.Tracer("test").Start(context.Background(), "produce")
	if err := q.Add(ctx, "traced", 1); err != nil {
		t.Fatal(err)
	}
	produce.End()
	if err := q.Add(context.Background(), "bare", 2); err != nil {
		t.Fatal(err)
	}
	var got atomic.Int32
	consumeTraced(t, q, tp, false)
	for _, s := range spansNamed(exp, "process work") {
		switch {
		case s.Parent.SpanID() == produce.SpanContext().SpanID():
			got.Add(1)
		case s.Parent.IsValid():
			t.Errorf("a process span's parent is %v", s.Parent.SpanID())
		}
	}
	if got.Load() != 1 {
		t.Errorf("%d process spans are children of the producer's; want 1", got.Load())
	}
}

// hasAttr reports whether s has kv.
func hasAttr(s tracetest.SpanStub, kv attribute.KeyValue) bool {
	for _, a := range s.Attributes {
		if a == kv {
			return true
		}
	}
	return false
}
