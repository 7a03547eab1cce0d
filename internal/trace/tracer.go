package trace

import (
	otrace "go.opentelemetry.io/otel/trace"
)

// Scope is the instrumentation scope of the runtime's tracer.
const Scope = "github.com/evolvekit/evolve"

// Tracer makes the spans of every agent on one runtime. Nil means no
// tracing: a runtime without a TracerProvider has none.
type Tracer struct {
	t otrace.Tracer
}

// New returns the tracer of tp, or nil for a nil tp.
func New(tp otrace.TracerProvider) *Tracer {
	if tp == nil {
		return nil
	}
	return &Tracer{t: tp.Tracer(Scope)}
}
