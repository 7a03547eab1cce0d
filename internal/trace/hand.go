package trace

import otrace "go.opentelemetry.io/otel/trace"

// Hand carries the span contexts of the values one agent passes on to the
// next, one for each value, in order. The agent before sets it just before
// it hands the values over, a conversion between them keeps it in step
// with the values it keeps, and the agent after takes it as the values
// arrive: all on the goroutine that hands them over, one hand-over at a
// time. A context that is not valid stands for a value whose item nobody
// followed.
type Hand struct {
	ctxs []otrace.SpanContext
	set  bool
	// approx says the contexts are those the values probably came from (see NewLine).
	approx bool
}

// Set gives h the contexts of the values about to be handed over.
func (h *Hand) Set(ctxs []otrace.SpanContext) { h.ctxs, h.set = ctxs, true }

// Held reports whether h holds contexts for the values being handed over.
func (h *Hand) Held() bool { return h != nil && h.set }

// Keep keeps only the contexts whose values a conversion kept: keep[i]
// says whether it kept the i-th.
func (h *Hand) Keep(keep []bool) {
	if !h.Held() || len(keep) != len(h.ctxs) {
		return
	}
	kept := h.ctxs[:0]
	for i, k := range keep {
		if k {
			kept = append(kept, h.ctxs[i])
		}
	}
	h.ctxs = kept
}

// take returns the contexts for n values and empties h; nil when h holds
// none, or not n.
func (h *Hand) take(n int) []otrace.SpanContext {
	if !h.Held() {
		return nil
	}
	ctxs := h.ctxs
	h.ctxs, h.set = nil, false
	if len(ctxs) != n {
		return nil
	}
	return ctxs
}
