package worker

import (
	"errors"

	"github.com/evolvekit/evolve/internal/trace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	otrace "go.opentelemetry.io/otel/trace"
)

// Traces: a task may carry the context of its item's span on the master
// (see wire.Tasks). A worker with a tracer (Config.Traces) starts a span
// "work <stage>" for each attempt at a task, a child of that context (a
// new trace's root when the task carries none, or one that does not
// parse), and the work runs under it: the spans it starts nest under it. A
// worker without one starts no span, but its work's context still
// carries the item's span context, so that spans the work starts with a
// tracer of its own join the item's trace.

// tracing is how a worker traces the attempts at its tasks: nil when it
// has no tracer.
type tracing struct {
	t     otrace.Tracer
	name  string
	attrs []attribute.KeyValue
}

// newTracing returns the tracing of a worker of cfg at addr, or nil if
// cfg has no tracer.
func newTracing(cfg Config, addr string) *tracing {
	if cfg.Traces == nil {
		return nil
	}
	return &tracing{t: cfg.Traces.Tracer(trace.Scope), name: "work " + cfg.Stage, attrs: []attribute.KeyValue{
		attribute.String("messaging.system", "evolve"),
		attribute.String("messaging.operation", "process"),
		attribute.String("messaging.destination.name", cfg.Stage),
		attribute.String("evolve.worker", addr),
	}}
}

// parent and state return the trace context t's message carries for it,
// "" for none.
func (t *task) parent() string { return ownOf(t, t.src.GetTraceparent()) }
func (t *task) state() string  { return ownOf(t, t.src.GetTracestate()) }

// begin starts the span of the attempt at t, if t is traced or the
// worker has a tracer, and sets t's context to one that carries it (or
// the item's span context alone); nil when it starts none.
func (tr *tracing) begin(t *task) otrace.Span {
	parent := t.parent()
	if parent == "" && tr == nil {
		return nil
	}
	t.ctx = trace.Extract(t.ctx, parent, t.state())
	if tr == nil {
		return nil
	}
	attrs := append(tr.attrs[:len(tr.attrs):len(tr.attrs)],
		attribute.Int64("messaging.message.id", int64(t.item)), attribute.Int("evolve.attempt", int(t.attempt)))
	if hops := t.hops(); hops > 0 {
		attrs = append(attrs, attribute.Int("evolve.hops", hops))
	}
	var span otrace.Span
	t.ctx, span = tr.t.Start(t.ctx, tr.name, otrace.WithSpanKind(otrace.SpanKindConsumer), otrace.WithAttributes(attrs...))
	return span
}

// moved records on span, if not nil, the move to tag that the work asked
// for: an event "move", local when the worker goes on with it itself.
func moved(span otrace.Span, tag string, local bool) {
	if span != nil {
		span.AddEvent("move", otrace.WithAttributes(attribute.String("evolve.tag", tag), attribute.Bool("evolve.local", local)))
	}
}

// end ends span, if not nil, with o's failure recorded as its error.
func end(span otrace.Span, o *outcome) {
	if span == nil {
		return
	}
	if o.failed {
		span.RecordError(errors.New(o.err))
		span.SetStatus(codes.Error, o.err)
	}
	span.End()
}
