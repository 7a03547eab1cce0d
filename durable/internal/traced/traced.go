// Package traced carries the trace context of a durable queue's items in
// the headers of their NATS messages, as OpenTelemetry's messaging
// conventions have a producer do: the W3C headers traceparent and
// tracestate. A queue with a tracer provider starts a span "publish
// <subject>" (kind producer, messaging.system "nats") for each item it
// adds, a child of the span of the context given to Add, and its context
// goes in the headers; one without puts the context given to Add there,
// if it carries a span. The process that takes the item out reads the
// headers back, and the item's first span in its chain is a child of that
// context: every delivery of the item, after a crash too, follows the
// same trace.
package traced

import (
	"context"
	"errors"

	"github.com/evolvekit/evolve/internal/trace"
	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/attribute"
	otrace "go.opentelemetry.io/otel/trace"
)

// The headers of W3C Trace Context, as NATS messages carry them.
const (
	Traceparent = "traceparent"
	Tracestate  = "tracestate"
)

// Publisher traces the adds of one queue. A nil *Publisher, a queue's
// with no tracer provider, starts no span and puts in the headers the
// span context of the context given, if any. It is safe for concurrent
// use.
type Publisher struct {
	t     otrace.Tracer
	name  string
	attrs []attribute.KeyValue
}

// New returns the publisher of the queue whose items go on subject, with
// spans of tp's tracer; nil for a nil tp.
func New(tp otrace.TracerProvider, subject string) *Publisher {
	if tp == nil {
		return nil
	}
	return &Publisher{t: tp.Tracer(trace.Scope), name: "publish " + subject, attrs: []attribute.KeyValue{
		attribute.String("messaging.system", "nats"),
		attribute.String("messaging.operation", "publish"),
		attribute.String("messaging.destination.name", subject),
	}}
}

// Start starts the span of the publish of m, under ctx, and puts its
// context in m's headers; nil p only puts ctx's span context there. It
// returns the span, nil if it started none.
func (p *Publisher) Start(ctx context.Context, m *nats.Msg) otrace.Span {
	sc := otrace.SpanContextFromContext(ctx)
	var span otrace.Span
	if p != nil {
		_, span = p.t.Start(ctx, p.name, otrace.WithSpanKind(otrace.SpanKindProducer), otrace.WithAttributes(p.attrs...))
		sc = span.SpanContext()
	}
	if parent, state := trace.Traceparent(sc); parent != "" {
		if m.Header == nil {
			m.Header = nats.Header{}
		}
		m.Header.Set(Traceparent, parent)
		if state != "" {
			m.Header.Set(Tracestate, state)
		}
	}
	return span
}

// Extract returns ctx carrying the span context h's headers name: ctx
// itself when they name none, or one that does not parse.
func Extract(ctx context.Context, h nats.Header) context.Context {
	if h == nil {
		return ctx
	}
	return trace.Extract(ctx, h.Get(Traceparent), h.Get(Tracestate))
}

// Spans holds the spans of the publishes of one AddMany until each is
// confirmed. Its zero value holds none, and allocates nothing until it
// does. It is used by one goroutine.
type Spans struct{ m map[*nats.Msg]otrace.Span }

// Start starts the span of the publish of m with p, as Publisher.Start
// does, and holds it until End.
func (s *Spans) Start(ctx context.Context, p *Publisher, m *nats.Msg) {
	span := p.Start(ctx, m)
	if span == nil {
		return
	}
	if s.m == nil {
		s.m = make(map[*nats.Msg]otrace.Span)
	}
	s.m[m] = span
}

// End ends the span of the publish of m, with err.
func (s *Spans) End(m *nats.Msg, err error) {
	if span, ok := s.m[m]; ok {
		delete(s.m, m)
		trace.End(span, err)
	}
}

// errUnconfirmed ends the spans of publishes whose confirmation was not
// waited for.
var errUnconfirmed = errors.New("durable: the add ended before the servers confirmed the item")

// Close ends the spans still held: their adds ended before the servers
// confirmed them (an error, or the context's end).
func (s *Spans) Close() {
	for m, span := range s.m {
		trace.End(span, errUnconfirmed)
		delete(s.m, m)
	}
}
