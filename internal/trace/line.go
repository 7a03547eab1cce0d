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
//
// The sampler decides once per item, as the first agent accepts it: an
// item whose span is neither sampled nor recording is quiet, and the agents
// after it keep only a mark for it, its span's context, and start no spans
// for it, nor for the attempts of its work (whose context still carries
// that span context, so that the spans the work starts follow the same
// decision).
type Line struct {
	t      otrace.Tracer
	name   string
	approx bool // values passed on one for one may not be the items' in order

	// The names, options and attributes of the agent's spans, built once.
	// The attributes are set once a span is known to record: a span the
	// sampler drops costs none.
	process, work, batchName string
	opts                     []otrace.SpanStartOption
	attrs                    []attribute.KeyValue

	mu      sync.Mutex
	items   []entry // items[lo+i] is the item at Seq base+i
	lo      int     // the items before are done, their room not yet reused
	base    uint64
	next    uint64 // the Seq of the next item accepted
	fifo    uint64 // the Seq of the next item passed on one for one, or batched
	batches []batch
	out     []mark // the marks of the values emitted since the last Pass
	hand    Hand   // the marks the agent before hands over
}

// Hand returns where the agent before hands over the span contexts of the
// items it passes on; nil for a nil l.
func (l *Line) Hand() *Hand {
	if l == nil {
		return nil
	}
	return &l.hand
}

// entry is an item's place in a line: its span, nil for a quiet item, and
// its span's context.
type entry struct {
	span     otrace.Span
	sc       otrace.SpanContext
	attempts int
	done     bool
}

// mark returns what follows e to the next agent.
func (e *entry) mark() mark { return mark{sc: e.sc, quiet: e.span == nil} }

// batch is the span of a batch of items taken as one (a buffer's): the
// items from first on, n of them.
type batch struct {
	entry
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
	return &Line{t: t.t, name: name, approx: approx,
		process: "process " + name, work: "work " + name, batchName: "batch " + name,
		opts: []otrace.SpanStartOption{otrace.WithSpanKind(otrace.SpanKindConsumer)},
		attrs: []attribute.KeyValue{
			attribute.String("messaging.system", "evolve"),
			attribute.String("messaging.operation", "process"),
			attribute.String("messaging.destination.name", name),
		},
	}
}

// Posted is the span of an item being posted, begun before the agent's
// inbox is locked (see Begin). Its zero value, an untraced agent's, holds
// nothing.
type Posted struct{ span otrace.Span }

// Begin starts the span of an item posted with ctx: a child of the span
// ctx carries, or a new trace's root. The sampler's decision on it holds
// for the item in the agents after this one. The poster calls it before it
// locks the agent's inbox, so that the sampler's cost is the poster's
// alone, then Accept or Refused. A nil l begins nothing.
func (l *Line) Begin(ctx context.Context) Posted {
	if l == nil {
		return Posted{}
	}
	return Posted{l.start(ctx, l.opts)}
}

// Refused ends the span of an item the agent did not take, with err, and
// returns err.
func (p Posted) Refused(err error) error {
	if p.span != nil && p.span.IsRecording() {
		p.span.SetStatus(codes.Error, err.Error())
		p.span.End()
	}
	return err
}

// Accept puts the item whose span p is at the end of the line, under the
// inbox's lock. A nil l does nothing.
func (l *Line) Accept(p Posted) {
	if l != nil {
		l.acceptOne(p.span)
	}
}

func (l *Line) acceptOne(span otrace.Span) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.put(span)
}

// Arrive starts the spans of n items handed over from the agent before,
// each a child of the span its Hand carries for it (or, when it only
// knows them approximately, a new trace linked to it); a quiet item's
// mark goes on without a span. A nil l does nothing.
func (l *Line) Arrive(n int) {
	if l != nil {
		l.arrive(&l.hand, n)
	}
}

func (l *Line) arrive(h *Hand, n int) {
	approx := h.approx
	marks := h.take(n)
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range n {
		switch {
		case marks == nil:
			l.put(l.start(context.Background(), l.opts))
		case marks[i].quiet:
			l.add(entry{sc: marks[i].sc})
		case approx && marks[i].sc.IsValid():
			link := otrace.Link{SpanContext: marks[i].sc, Attributes: []attribute.KeyValue{attribute.Bool("evolve.approximate", true)}}
			l.put(l.start(context.Background(), append(l.opts[:len(l.opts):len(l.opts)], otrace.WithLinks(link))))
		case approx:
			l.put(l.start(context.Background(), l.opts))
		default:
			l.put(l.start(otrace.ContextWithSpanContext(context.Background(), marks[i].sc), l.opts))
		}
	}
}

// start starts the span of an item, under ctx.
func (l *Line) start(ctx context.Context, opts []otrace.SpanStartOption) otrace.Span {
	_, span := l.t.Start(ctx, l.process, opts...)
	return span
}

// put adds the item whose span is span at the end of the line: a quiet
// item, without its span, when the sampler neither samples nor records
// it; otherwise its span gets its attributes, its Seq among them.
func (l *Line) put(span otrace.Span) {
	sc := span.SpanContext()
	if !sc.IsSampled() && !span.IsRecording() {
		l.add(entry{sc: sc}) // its End would do nothing
		return
	}
	span.SetAttributes(l.with(attribute.Int64("messaging.message.id", int64(l.next)))...)
	l.add(entry{span: span, sc: sc})
}

// with returns the attributes of the agent's spans, and kv.
func (l *Line) with(kv attribute.KeyValue) []attribute.KeyValue {
	return append(l.attrs[:len(l.attrs):len(l.attrs)], kv)
}

// add puts e at the end of the line, in the room of the items done at its
// front once they are half of it, so that a line whose items come and go
// at a steady pace allocates nothing.
func (l *Line) add(e entry) {
	if n := len(l.items); n == cap(l.items) && l.lo > 0 && 2*l.lo >= n {
		live := copy(l.items, l.items[l.lo:])
		clear(l.items[live:])
		l.items, l.lo = l.items[:live], 0
	}
	l.items = append(l.items, e)
	l.next++
}

// at returns the entry of the item at seq, or nil if it is gone or was
// never accepted.
func (l *Line) at(seq uint64) *entry {
	if seq < l.base || seq >= l.base+uint64(len(l.items)-l.lo) {
		return nil
	}
	e := &l.items[l.lo+int(seq-l.base)]
	if e.done {
		return nil
	}
	return e
}

// finish ends the span of e and lets go of the items done from the front.
func (l *Line) finish(e *entry) {
	if e.span != nil {
		e.span.End()
	}
	*e = entry{done: true}
	lo := l.lo
	for lo < len(l.items) && l.items[lo].done {
		lo++
	}
	l.base += uint64(lo - l.lo)
	l.lo = lo
	if lo == len(l.items) {
		l.items, l.lo = l.items[:0], 0
		if cap(l.items) > keptRoom {
			l.items = nil // let a burst's array go
		}
	}
}

// keptRoom is the most items a line keeps room for once none is held.
const keptRoom = 1024

// EmitSeq passes on the item at seq: its span ends, and its context goes
// with the value to the next agent.
func (l *Line) EmitSeq(seq uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.emitSeq(seq)
}

func (l *Line) emitSeq(seq uint64) {
	var m mark
	if e := l.at(seq); e != nil {
		m = e.mark()
		l.finish(e)
	}
	l.out = append(l.out, m)
}

// EmitNext passes on the oldest item not passed on yet, for an agent that
// passes its items on one for one, in order.
func (l *Line) EmitNext() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.emitNext()
}

func (l *Line) emitNext() {
	var m mark
	for l.fifo < l.next {
		e := l.at(l.fifo)
		l.fifo++
		if e != nil {
			m = e.mark()
			l.finish(e)
			break
		}
	}
	l.out = append(l.out, m)
}

// EmitBatch passes on the oldest batch: its span ends, and its context
// goes with the value to the next agent.
func (l *Line) EmitBatch() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.emitBatch()
}

func (l *Line) emitBatch() {
	var m mark
	if len(l.batches) > 0 {
		b := l.batches[0]
		l.batches = l.batches[1:]
		m = b.mark()
		if b.span != nil {
			b.span.End()
		}
	}
	l.out = append(l.out, m)
}

// Pass hands the contexts of the values emitted since the last Pass to h,
// the next agent's, just before the values go; a nil h (a sink) drops them.
func (l *Line) Pass(h *Hand) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if h != nil && len(l.out) > 0 {
		h.give(l.out, l.approx)
	}
	l.out = l.out[:0]
}

// Dead marks the item at seq failed for good: its span, or that of the
// batch it went in, records err as its error and ends.
func (l *Line) Dead(seq uint64, err error, attempts int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.at(seq); e != nil {
		fail(e.span, err, seq, attempts)
		l.finish(e)
		return
	}
	for i, b := range l.batches {
		if seq >= b.first && seq < b.first+uint64(b.n) {
			fail(b.span, err, seq, attempts)
			if b.span != nil {
				b.span.End()
			}
			l.batches = append(l.batches[:i:i], l.batches[i+1:]...)
			return
		}
	}
}

// fail marks span, if not nil, failed for good with err, as a "dead
// letter" event.
func fail(span otrace.Span, err error, seq uint64, attempts int) {
	if span == nil {
		return
	}
	span.AddEvent("dead letter", otrace.WithAttributes(attribute.Int64("messaging.message.id", int64(seq)), attribute.Int("evolve.attempts", attempts)))
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
	for i := l.lo; i < len(l.items); i++ {
		if e := &l.items[i]; !e.done && e.span != nil {
			e.span.SetStatus(codes.Error, "the agent ended before the item was passed on")
			e.span.End()
		}
	}
	for _, b := range l.batches {
		if b.span != nil {
			b.span.SetStatus(codes.Error, "the agent ended before the batch was passed on")
			b.span.End()
		}
	}
	l.items, l.lo, l.batches = nil, 0, nil
}
