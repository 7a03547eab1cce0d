package trace

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	otrace "go.opentelemetry.io/otel/trace"
)

// Line keeps the spans of the items one agent accepted, by their Seq (the
// place of each in the agent's input, counted from 0), until each is passed
// on or fails. It is safe for concurrent use: items are accepted on the
// goroutines that post them, and passed on in the agent's rounds.
type Line struct {
	t      otrace.Tracer
	name   string
	approx bool // values passed on one for one may not be the items' in order

	mu      sync.Mutex
	items   []entry // items[i] is the item at Seq base+i
	base    uint64
	next    uint64 // the Seq of the next item accepted
	fifo    uint64 // the Seq of the next item passed on one for one, or batched
	batches []batch
	out     []otrace.SpanContext // the contexts of the values emitted since the last Pass
	hand    Hand                 // the contexts the agent before hands over
}

// Hand returns where the agent before hands over the span contexts of the
// items it passes on; nil for a nil l.
func (l *Line) Hand() *Hand {
	if l == nil {
		return nil
	}
	return &l.hand
}

type entry struct {
	span     otrace.Span
	attempts int
	done     bool
}

// batch is the span of a batch of items taken as one (a buffer's): the
// items from first on, n of them.
type batch struct {
	span  otrace.Span
	first uint64
	n     int
}

// NewLine returns the line of the agent name on t, or nil for a nil t.
// Approx says the agent may pass its values on in another order than it
// took its items (a rate agent with keys) and says nothing of which is
// which: the agent after it then starts a new trace for each, linked to
// the span it probably came from rather than its child.
func NewLine(t *Tracer, name string, approx bool) *Line {
	if t == nil {
		return nil
	}
	return &Line{t: t.t, name: name, approx: approx}
}

// Accept starts the span of an item posted with ctx: a child of the span
// ctx carries, or a new trace's root. A nil l does nothing.
func (l *Line) Accept(ctx context.Context) {
	if l != nil {
		l.acceptOne(ctx)
	}
}

func (l *Line) acceptOne(ctx context.Context) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.accept(ctx, otrace.Link{})
}

// Arrive starts the spans of n items handed over from the agent before,
// each a child of the span its Hand carries for it (or, when it only
// knows them approximately, a new trace linked to it). A nil l does
// nothing.
func (l *Line) Arrive(n int) {
	if l != nil {
		l.arrive(&l.hand, n)
	}
}

func (l *Line) arrive(h *Hand, n int) {
	approx := h != nil && h.approx
	ctxs := h.take(n)
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range n {
		ctx := context.Background()
		var link otrace.Link
		switch {
		case ctxs == nil:
		case approx:
			link = otrace.Link{SpanContext: ctxs[i], Attributes: []attribute.KeyValue{attribute.Bool("evolve.approximate", true)}}
		default:
			ctx = otrace.ContextWithSpanContext(ctx, ctxs[i])
		}
		l.accept(ctx, link)
	}
}

func (l *Line) accept(ctx context.Context, link otrace.Link) {
	opts := []otrace.SpanStartOption{
		otrace.WithSpanKind(otrace.SpanKindConsumer),
		otrace.WithAttributes(
			attribute.String("messaging.system", "evolve"),
			attribute.String("messaging.operation", "process"),
			attribute.String("messaging.destination.name", l.name),
			attribute.Int64("messaging.message.id", int64(l.next)),
		),
	}
	if link.SpanContext.IsValid() {
		opts = append(opts, otrace.WithLinks(link))
	}
	_, span := l.t.Start(ctx, "process "+l.name, opts...)
	l.items = append(l.items, entry{span: span})
	l.next++
}

// at returns the entry of the item at seq, or nil if it is gone or was
// never accepted.
func (l *Line) at(seq uint64) *entry {
	if seq < l.base || seq >= l.base+uint64(len(l.items)) {
		return nil
	}
	e := &l.items[seq-l.base]
	if e.done {
		return nil
	}
	return e
}

// finish ends the span of e and lets go of the items done from the front.
func (l *Line) finish(e *entry) {
	e.span.End()
	e.done, e.span = true, nil
	n := 0
	for n < len(l.items) && l.items[n].done {
		n++
	}
	if n > 0 {
		l.items = l.items[n:]
		l.base += uint64(n)
		if len(l.items) == 0 {
			l.items = l.items[:0:0] // let the array go
		}
	}
}

// EmitSeq passes on the item at seq: its span ends, and its context goes
// with the value to the next agent.
func (l *Line) EmitSeq(seq uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var sc otrace.SpanContext
	if e := l.at(seq); e != nil {
		sc = e.span.SpanContext()
		l.finish(e)
	}
	l.out = append(l.out, sc)
}

// EmitNext passes on the oldest item not passed on yet, for an agent that
// passes its items on one for one, in order.
func (l *Line) EmitNext() {
	l.mu.Lock()
	defer l.mu.Unlock()
	var sc otrace.SpanContext
	for l.fifo < l.next {
		e := l.at(l.fifo)
		l.fifo++
		if e != nil {
			sc = e.span.SpanContext()
			l.finish(e)
			break
		}
	}
	l.out = append(l.out, sc)
}

// EmitBatch passes on the oldest batch: its span ends, and its context
// goes with the value to the next agent.
func (l *Line) EmitBatch() {
	l.mu.Lock()
	defer l.mu.Unlock()
	var sc otrace.SpanContext
	if len(l.batches) > 0 {
		b := l.batches[0]
		l.batches = l.batches[1:]
		sc = b.span.SpanContext()
		b.span.End()
	}
	l.out = append(l.out, sc)
}

// Pass hands the contexts of the values emitted since the last Pass to h,
// the next agent's, just before the values go; a nil h (a sink) drops them.
func (l *Line) Pass(h *Hand) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if h != nil && len(l.out) > 0 {
		h.Set(append([]otrace.SpanContext(nil), l.out...))
		h.approx = l.approx
	}
	l.out = l.out[:0]
}

// Dead marks the item at seq failed for good: its span, or that of the
// batch it went in, records err as its error and ends.
func (l *Line) Dead(seq uint64, err error, attempts int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	attrs := otrace.WithAttributes(attribute.Int64("messaging.message.id", int64(seq)), attribute.Int("evolve.attempts", attempts))
	if e := l.at(seq); e != nil {
		fail(e.span, err, attrs)
		l.finish(e)
		return
	}
	for i, b := range l.batches {
		if seq >= b.first && seq < b.first+uint64(b.n) {
			fail(b.span, err, attrs)
			b.span.End()
			l.batches = append(l.batches[:i:i], l.batches[i+1:]...)
			return
		}
	}
}

// fail marks span failed for good with err, as a "dead letter" event.
func fail(span otrace.Span, err error, attrs otrace.EventOption) {
	span.AddEvent("dead letter", attrs)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	} else {
		span.SetStatus(codes.Error, "dead letter")
	}
}

// Close ends the spans of the items and batches still held, as the agent
// ends: it was stopped, or failed, before they were passed on.
func (l *Line) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range l.items {
		if e := &l.items[i]; !e.done {
			e.span.SetStatus(codes.Error, "the agent ended before the item was passed on")
			e.span.End()
		}
	}
	for _, b := range l.batches {
		b.span.SetStatus(codes.Error, "the agent ended before the batch was passed on")
		b.span.End()
	}
	l.items, l.batches = nil, nil
}
