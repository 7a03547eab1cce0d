package trace

import otrace "go.opentelemetry.io/otel/trace"

// Hand carries the span contexts of the values one agent passes on to the
// next, one for each value, in order. The agent before sets it just before
// it hands the values over, a conversion between them keeps it in step
// with the values it keeps (Keep, Kept), and the agent after takes it as
// the values arrive: all on the goroutine that hands them over, one
// hand-over at a time. A mark whose context is not valid stands for a
// value whose item nobody followed.
type Hand struct {
	marks []mark // reused from one hand-over to the next
	set   bool
	kept  int // the marks kept so far in a conversion's pass
	// approx says the contexts are those the values probably came from (see NewLine).
	approx bool
}

// mark is what follows one item from an agent to the next: the context of
// its span, and whether its trace is quiet: not sampled and not recorded,
// so that the agents after it start no spans for it (see Line).
type mark struct {
	sc    otrace.SpanContext
	quiet bool
}

// give gives h the marks of the values about to be handed over, copied.
func (h *Hand) give(marks []mark, approx bool) {
	h.marks, h.set, h.kept, h.approx = append(h.marks[:0], marks...), true, 0, approx
}

// Held reports whether h holds contexts for the values being handed over.
func (h *Hand) Held() bool { return h != nil && h.set }

// Keep keeps the context of the i-th value being handed over, in a
// conversion's pass over them that keeps some: call it for each value kept,
// in order, as the conversion keeps it, then Kept. It does nothing when h
// holds no contexts.
func (h *Hand) Keep(i int) {
	if h.Held() && i < len(h.marks) {
		h.marks[h.kept] = h.marks[i]
		h.kept++
	}
}

// Kept ends a conversion's pass over n values: h holds the contexts of
// those kept. If h held contexts for other than n values, it holds none,
// and the agent after starts new traces for them rather than guess.
func (h *Hand) Kept(n int) {
	if !h.Held() {
		return
	}
	if len(h.marks) != n {
		h.set = false
	}
	h.marks, h.kept = h.marks[:h.kept], 0
}

// take returns the marks for n values and empties h; nil when h holds
// none, or not n. They stay valid until the next hand-over.
func (h *Hand) take(n int) []mark {
	if !h.Held() {
		return nil
	}
	h.set = false
	if len(h.marks) != n {
		return nil
	}
	return h.marks
}
