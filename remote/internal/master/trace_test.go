package master

import (
	"context"
	"strings"
	"testing"

	"github.com/evolvekit/evolve/internal/trace"
	"github.com/evolvekit/evolve/remote/internal/wire"
	"github.com/stretchr/testify/assert"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	otrace "go.opentelemetry.io/otel/trace"
)

// line returns a line of n items, posted under a parent whose tracestate
// is state, so that their spans carry it.
func line(t *testing.T, n int, state string) *trace.Line {
	tp := sdktrace.NewTracerProvider()
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	ts, err := otrace.ParseTraceState(state)
	assert.NoError(t, err)
	parent := otrace.NewSpanContext(otrace.SpanContextConfig{TraceID: otrace.TraceID{1}, SpanID: otrace.SpanID{1}, TraceFlags: otrace.FlagsSampled, TraceState: ts})
	ctx := otrace.ContextWithSpanContext(context.Background(), parent)
	l := trace.NewLine(trace.New(tp), "stage", false)
	for range n {
		l.Accept(l.Begin(ctx))
	}
	return l
}

// TestTasksCarryTheirItemsSpanContexts: each task carries the context of
// its item's span, "" for an item the line does not hold; a message with
// no traced item, or of a master that traces nothing, carries none.
func TestTasksCarryTheirItemsSpanContexts(t *testing.T) {
	l := line(t, 2, "v=1")
	msg := &wire.Tasks{Items: []uint64{7, 1, 0}}
	traceTasks(msg, l)
	assert.Equal(t, "", msg.Traceparent[0])
	for i, item := range []uint64{1, 0} {
		parent, state := trace.Traceparent(l.Context(item))
		assert.Equal(t, parent, msg.Traceparent[i+1])
		assert.Equal(t, state, msg.Tracestate[i+1])
	}
	assert.Equal(t, []string{"", "v=1", "v=1"}, msg.Tracestate)

	none := &wire.Tasks{Items: []uint64{5, 6}}
	traceTasks(none, l)
	assert.Nil(t, none.Traceparent)
	assert.Nil(t, none.Tracestate)
	untraced := &link[int, int]{}
	msgs := []*wire.Tasks{{Items: []uint64{0}}}
	untraced.trace(msgs, "127.0.0.1:1")
	assert.Nil(t, msgs[0].Traceparent)
}

// TestTracestatesStayWithinTheirRoom: the tracestates of one message take
// at most wire.TraceStateRoom bytes; those beyond are dropped, their
// traceparents kept.
func TestTracestatesStayWithinTheirRoom(t *testing.T) {
	state := "v=" + strings.Repeat("x", 250)
	n := wire.TraceStateRoom/len(state) + 3
	l := line(t, n, state)
	msg := &wire.Tasks{}
	for i := range n {
		msg.Items = append(msg.Items, uint64(i))
	}
	traceTasks(msg, l)
	total := 0
	for i := range n {
		assert.NotEmpty(t, msg.Traceparent[i])
		total += len(msg.Tracestate[i])
	}
	assert.LessOrEqual(t, total, wire.TraceStateRoom)
	assert.Equal(t, "", msg.Tracestate[n-1])
	assert.Equal(t, state, msg.Tracestate[0])
}

// TestEachAttemptIsRecordedOnItsItemsSpan: a task's attempt and worker
// are an event on its item's span, whether or not the worker's own span
// ever ends.
func TestEachAttemptIsRecordedOnItsItemsSpan(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	l := trace.NewLine(trace.New(tp), "stage", false)
	l.Accept(l.Begin(context.Background()))
	traced := &link[int, int]{}
	traced.cfg.Spans = l
	traced.trace([]*wire.Tasks{{Items: []uint64{0}, Attempts: []uint32{1}}}, "127.0.0.1:7001")
	traced.trace([]*wire.Tasks{{Items: []uint64{0, 9}, Attempts: []uint32{2, 1}}}, "127.0.0.1:7002")
	l.EmitSeq(0)
	spans := exp.GetSpans()
	if assert.Len(t, spans, 1) {
		var got []string
		for _, e := range spans[0].Events {
			attempt, worker := "", ""
			for _, kv := range e.Attributes {
				switch kv.Key {
				case "evolve.attempt":
					attempt = kv.Value.Emit()
				case "evolve.worker":
					worker = kv.Value.AsString()
				}
			}
			got = append(got, e.Name+" "+attempt+" "+worker)
		}
		assert.Equal(t, []string{"attempt 1 127.0.0.1:7001", "attempt 2 127.0.0.1:7002"}, got)
	}
}
