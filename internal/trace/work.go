package trace

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	otrace "go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Work is the context a Start's work runs with when its agent is traced:
// the agent's work context, with the spans of the items it works on. Work
// that runs each item in turn (a parallel agent's batch) calls Attempt for
// each; other work runs under one attempt span, which the context carries
// as its current span.
type Work struct {
	context.Context
	l     *Line
	first uint64
	items []attempt // the items' attempts, from first on
	span  otrace.Span
}

// attempt is an attempt at one item of a Work: its item's span, whether it
// is quiet (see Line), and which attempt it is.
type attempt struct {
	item  itemSpan
	quiet bool
	n     int
}

// itemSpan stands for an item's span in the context of its work: it
// carries the span's context and records nothing. The attempts of a Work
// hold theirs, so that a quiet item's work context costs one allocation.
type itemSpan struct {
	otrace.Span // nothing, for all but its context
	sc          otrace.SpanContext
}

// nothing is a span that does nothing.
var nothing otrace.Span = noop.Span{}

// SpanContext returns the context of the item's span.
func (s *itemSpan) SpanContext() otrace.SpanContext { return s.sc }

// Attempt starts the span of the attempt at the i-th item of w and
// returns it with a context, under w, that carries it: the work's own
// spans nest under it. End it with End. A quiet item's attempt has no
// span (nil): its context carries the item's span context.
func (w *Work) Attempt(i int) (context.Context, otrace.Span) {
	a := &w.items[i]
	ctx := otrace.ContextWithSpan(w.Context, &a.item)
	if a.quiet {
		return ctx, nil
	}
	return w.l.t.Start(ctx, w.l.work, otrace.WithAttributes(
		attribute.Int64("messaging.message.id", int64(w.first+uint64(i))),
		attribute.Int("evolve.attempt", a.n),
	))
}

// End ends span, an attempt's, recording err as its error if not nil. A
// nil span (a quiet item's) is left alone.
func End(span otrace.Span, err error) {
	if span == nil {
		return
	}
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// Ended ends the attempt span ctx carries, if it is a Work that runs
// under one, recording err.
func Ended(ctx context.Context, err error) {
	if w, ok := ctx.(*Work); ok {
		End(w.span, err)
	}
}

// Items returns the context work on the items from first on, n of them,
// runs with: a Work under ctx, each item counted one attempt more.
func (l *Line) Items(ctx context.Context, first uint64, n int) context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := &Work{Context: ctx, l: l, first: first, items: make([]attempt, n)}
	for i := range w.items {
		if e := l.at(first + uint64(i)); e != nil {
			e.attempts++
			w.items[i] = attempt{item: itemSpan{Span: nothing, sc: e.sc}, quiet: e.span == nil, n: e.attempts}
		}
	}
	return w
}

// Batch takes the n oldest items not batched yet as one batch: their
// spans end, and a new one, linked to each (a quiet item has none to link
// to), stands for the batch until it is passed on. It returns the context
// the batch's work runs with, under ctx: an attempt span, a child of the
// batch's, unless the sampler leaves the batch quiet.
func (l *Line) Batch(ctx context.Context, n int) context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	first := l.fifo
	var links []otrace.Link
	for range n {
		if e := l.at(l.fifo); e != nil {
			if e.span != nil {
				links = append(links, otrace.Link{SpanContext: e.sc})
			}
			l.finish(e)
		}
		l.fifo++
	}
	bctx, span := l.t.Start(context.Background(), l.batchName, append(l.opts[:len(l.opts):len(l.opts)], otrace.WithLinks(links...))...)
	b := batch{entry: entry{span: span, sc: span.SpanContext()}, first: first, n: n}
	if !b.sc.IsSampled() && !span.IsRecording() {
		b.span = nil
		l.batches = append(l.batches, b)
		return otrace.ContextWithSpanContext(ctx, b.sc)
	}
	span.SetAttributes(l.with(attribute.Int("messaging.batch.message_count", n))...)
	l.batches = append(l.batches, b)
	_, a := l.t.Start(bctx, l.work, otrace.WithAttributes(attribute.Int("evolve.attempt", 1)))
	return &Work{Context: otrace.ContextWithSpan(ctx, a), l: l, span: a, first: first}
}
