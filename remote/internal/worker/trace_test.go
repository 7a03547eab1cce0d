package worker

import (
	"bytes"
	"context"
	"testing"

	"github.com/evolvekit/evolve/remote/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	otrace "go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"
)

const goodParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// tracedWorker returns the tracing of a worker of stage "s" at "w:1" on
// an in-memory exporter.
func tracedWorker(t testing.TB) (*tracing, *tracetest.InMemoryExporter) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return newTracing(Config{Stage: "s", Traces: tp}, "w:1"), exp
}

// TestTraceOfIgnoresListsOfAnotherLength: a Tasks whose trace contexts
// are not one for each task carries none, without failing its tasks.
func TestTraceOfIgnoresListsOfAnotherLength(t *testing.T) {
	m := &wire.Tasks{Items: []uint64{4, 5}, Traceparent: []string{goodParent}, Tracestate: []string{"a=1", "b=2"}}
	a, b := task{src: m, at: 0}, task{src: m, at: 1}
	assert.Equal(t, []string{"", "a=1"}, []string{a.parent(), a.state()})
	assert.Equal(t, []string{"", "b=2"}, []string{b.parent(), b.state()})
	m.Traceparent = []string{goodParent, ""}
	assert.Equal(t, goodParent, a.parent())
	assert.Equal(t, "", b.parent())
	var none task
	assert.Equal(t, []string{"", ""}, []string{none.parent(), none.state()})
	assert.Equal(t, 0, none.hops())
}

// TestBeginMakesTheAttemptAChildOfTheItemsSpan: a task's span is a child
// of the context it carries, a new root when that does not parse, and a
// worker with no tracer starts none, its work's context carrying the
// item's span context alone.
func TestBeginMakesTheAttemptAChildOfTheItemsSpan(t *testing.T) {
	tr, exp := tracedWorker(t)
	for _, tc := range []struct {
		parent string
		child  bool
	}{{goodParent, true}, {"00-garbage", false}, {"", false}} {
		exp.Reset()
		m := &wire.Tasks{Items: []uint64{3}, Hops: []uint32{1}, Traceparent: []string{tc.parent}}
		tk := task{item: 3, attempt: 2, src: m, ctx: context.Background()}
		span := tr.begin(&tk)
		require.NotNil(t, span)
		end(span, &outcome{failed: true, err: "boom"})
		spans := exp.GetSpans()
		require.Len(t, spans, 1)
		s := spans[0]
		assert.Equal(t, "work s", s.Name)
		assert.Equal(t, tc.child, s.Parent.IsValid(), "parent %q", tc.parent)
		if tc.child {
			assert.Equal(t, "00f067aa0ba902b7", s.Parent.SpanID().String())
		}
		assert.Equal(t, otrace.SpanContextFromContext(tk.ctx), s.SpanContext, "the work's context carries the span")
		assert.Contains(t, s.Attributes, attribute.Int("evolve.attempt", 2))
		assert.Contains(t, s.Attributes, attribute.Int("evolve.hops", 1))
		assert.Contains(t, s.Attributes, attribute.String("evolve.worker", "w:1"))
		assert.Contains(t, s.Attributes, attribute.Int64("messaging.message.id", 3))
		assert.Equal(t, "Error", s.Status.Code.String())
	}

	var none *tracing
	tk := task{src: &wire.Tasks{Items: []uint64{0}, Traceparent: []string{goodParent}}, ctx: context.Background()}
	assert.Nil(t, none.begin(&tk))
	assert.Equal(t, "00f067aa0ba902b7", otrace.SpanContextFromContext(tk.ctx).SpanID().String())
	tk = task{ctx: context.Background()}
	assert.Nil(t, none.begin(&tk))
	assert.Equal(t, context.Background(), tk.ctx, "an untraced task on an untraced worker costs nothing")
}

// FuzzTasksTrace reads the fuzzer's bytes as a Tasks message, cuts it
// into tasks and begins the span of each, as the worker does: whatever it
// holds, nothing panics, and a message taken gives each task its own bytes
// of its values, in order.
func FuzzTasksTrace(f *testing.F) {
	for _, m := range []*wire.Tasks{
		{Items: []uint64{0, 1}, Attempts: []uint32{1, 1}, Sizes: []uint32{0, 0}, Traceparent: []string{goodParent, ""}, Tracestate: []string{"a=1", ""}},
		{Items: []uint64{0}, Attempts: []uint32{1}, Sizes: []uint32{0}, Traceparent: []string{"00-" + goodParent}},
		{Items: []uint64{0}, Traceparent: []string{goodParent, goodParent}, Tracestate: []string{"=,=,="}},
		{Items: []uint64{7, 8}, Attempts: []uint32{1, 2}, Sizes: []uint32{2, 3}, Values: []byte("42abc"), Hops: []uint32{0, 1}},
		{Items: []uint64{7, 8}, Attempts: []uint32{1, 2}, Sizes: []uint32{2, 4}, Values: []byte("42abc")},
	} {
		data, err := proto.Marshal(m)
		require.NoError(f, err)
		f.Add(data)
	}
	tr, _ := tracedWorker(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var m wire.Tasks
		if proto.Unmarshal(data, &m) != nil {
			return
		}
		for i := range m.Items {
			tk := task{ctx: context.Background(), src: &m, at: uint32(i)}
			end(tr.begin(&tk), &outcome{})
		}
		tasks, ok := tasksOf(&m, nil, 1, context.Background())
		if !ok {
			return
		}
		var values []byte
		for i := range tasks {
			require.Equal(t, int(m.Sizes[i]), len(tasks[i].data))
			values = append(values, tasks[i].data...)
			end(tr.begin(&tasks[i]), &outcome{})
		}
		require.True(t, bytes.Equal(m.Values[:len(values)], values))
	})
}
