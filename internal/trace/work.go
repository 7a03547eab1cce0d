package trace

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	otrace "go.opentelemetry.io/otel/trace"
)

// Work is the context a Start's work runs with when its agent is traced:
// the agent's work context, with the spans of the items it works on. Work
// that runs each item in turn (a parallel agent's batch) calls Attempt for
// each; other work runs under one attempt span, which the context carries
// as its current span.
type Work struct {
	context.Context
	t        otrace.Tracer
	name     string
	first    uint64
	items    []otrace.SpanContext // the spans of the items, from first on
	attempts []int
	span     otrace.Span // the attempt span of work not run item by item
}

// Attempt starts the span of the attempt at the i-th item of w and
// returns it with a context, under w, that carries it: the work's own
// spans nest under it. End it with End.
func (w *Work) Attempt(i int) (context.Context, otrace.Span) {
	ctx := otrace.ContextWithSpanContext(w.Context, w.items[i])
	return w.t.Start(ctx, "work "+w.name, otrace.WithAttributes(
		attribute.Int64("messaging.message.id", int64(w.first+uint64(i))),
		attribute.Int("evolve.attempt", w.attempts[i]),
	))
}

// End ends span, an attempt's, recording err as its error if not nil.
func End(span otrace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// Ended ends the attempt span ctx carries, if it is a Work that runs
// under one, recording err.
func Ended(ctx context.Context, err error) {
	if w, ok := ctx.(*Work); ok && w.span != nil {
		End(w.span, err)
	}
}

// Items returns the context work on the items from first on, n of them,
// runs with: a Work under ctx, each item counted one attempt more.
func (l *Line) Items(ctx context.Context, first uint64, n int) context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := &Work{Context: ctx, t: l.t, name: l.name, first: first, items: make([]otrace.SpanContext, n), attempts: make([]int, n)}
	for i := range n {
		if e := l.at(first + uint64(i)); e != nil {
			e.attempts++
			w.items[i], w.attempts[i] = e.span.SpanContext(), e.attempts
		}
	}
	return w
}

// Batch takes the n oldest items not batched yet as one batch: their
// spans end, and a new one, linked to each, stands for the batch until it
// is passed on. It returns the context the batch's work runs with, under
// ctx: an attempt span, a child of the batch's.
func (l *Line) Batch(ctx context.Context, n int) context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	first := l.fifo
	links := make([]otrace.Link, 0, n)
	for range n {
		if e := l.at(l.fifo); e != nil {
			links = append(links, otrace.Link{SpanContext: e.span.SpanContext()})
			l.finish(e)
		}
		l.fifo++
	}
	bctx, span := l.t.Start(context.Background(), "batch "+l.name, otrace.WithSpanKind(otrace.SpanKindConsumer), otrace.WithLinks(links...),
		otrace.WithAttributes(
			attribute.String("messaging.system", "evolve"),
			attribute.String("messaging.operation", "process"),
			attribute.String("messaging.destination.name", l.name),
			attribute.Int("messaging.batch.message_count", n),
		))
	l.batches = append(l.batches, batch{span: span, first: first, n: n})
	_, attempt := l.t.Start(bctx, "work "+l.name, otrace.WithAttributes(attribute.Int("evolve.attempt", 1)))
	return &Work{Context: otrace.ContextWithSpan(ctx, attempt), t: l.t, name: l.name, span: attempt, first: first}
}
