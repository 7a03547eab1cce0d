package trace

import (
	"context"
	"encoding/hex"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	otrace "go.opentelemetry.io/otel/trace"
)

// An item that leaves the process, to a remote stage's worker or through
// a durable queue, takes the context of its span along as W3C Trace
// Context: a traceparent ("00-<trace ID>-<span ID>-<flags>", 55 bytes)
// and a tracestate, "" when the span has none. The side that takes it in
// reads it with propagation.TraceContext, which refuses anything
// malformed: a context that does not parse is no parent at all.

// Context returns the context of the span of the item at seq in l: the
// zero SpanContext for a nil l, or an item l does not hold (passed on
// already, or never accepted).
func (l *Line) Context(seq uint64) otrace.SpanContext {
	if l == nil {
		return otrace.SpanContext{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.at(seq); e != nil {
		return e.sc
	}
	return otrace.SpanContext{}
}

// Dispatched records, on the span of the item at seq in l, that its
// attempt went to worker (an event "attempt", with evolve.attempt and
// evolve.worker): so that an attempt whose worker died with its own span
// unended is in the item's trace all the same. It records nothing for a
// nil l, an item l does not hold, or one whose span does not record.
func (l *Line) Dispatched(seq uint64, attempt int, worker string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.at(seq); e != nil && e.span != nil && e.span.IsRecording() {
		e.span.AddEvent("attempt", otrace.WithAttributes(attribute.Int("evolve.attempt", attempt), attribute.String("evolve.worker", worker)))
	}
}

// Traceparent returns sc as a W3C traceparent and tracestate, or two
// empty strings for a context that is not valid.
func Traceparent(sc otrace.SpanContext) (parent, state string) {
	if !sc.IsValid() {
		return "", ""
	}
	var b [55]byte
	tid, sid := sc.TraceID(), sc.SpanID()
	copy(b[:], "00-")
	hex.Encode(b[3:35], tid[:])
	b[35] = '-'
	hex.Encode(b[36:52], sid[:])
	b[52] = '-'
	hex.Encode(b[53:55], []byte{byte(sc.TraceFlags() & otrace.FlagsSampled)})
	return string(b[:]), sc.TraceState().String()
}

// Extract returns ctx carrying the remote span context that parent and
// state, a W3C traceparent and tracestate, name: ctx itself when parent
// is empty or malformed. A tracestate that is malformed is dropped, and
// the traceparent kept.
func Extract(ctx context.Context, parent, state string) context.Context {
	if parent == "" {
		return ctx
	}
	return propagation.TraceContext{}.Extract(ctx, carrier{parent: parent, state: state})
}

// carrier holds one traceparent and tracestate, for TraceContext to read.
type carrier struct{ parent, state string }

func (c carrier) Get(key string) string {
	switch key {
	case traceparentHeader:
		return c.parent
	case tracestateHeader:
		return c.state
	}
	return ""
}

func (carrier) Set(string, string) {}

func (carrier) Keys() []string { return []string{traceparentHeader, tracestateHeader} }

// The names W3C Trace Context gives its two headers.
const (
	traceparentHeader = "traceparent"
	tracestateHeader  = "tracestate"
)
