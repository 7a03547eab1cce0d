//go:build !race

// The tests in this file run protoactor remote for real, in one process
// (see process_test.go for why not under the race detector).

package remote_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	oteltrace "go.opentelemetry.io/otel/trace"
)

// traced is an in-memory tracer provider and what it recorded.
type traced struct {
	tp  *sdktrace.TracerProvider
	exp *tracetest.InMemoryExporter
}

func newTraced(t *testing.T) traced {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return traced{tp: tp, exp: exp}
}

// named returns the spans of tr named name, by item (their
// messaging.message.id), several to an item in the order they ended.
func (tr traced) named(name string) map[int64][]tracetest.SpanStub {
	out := map[int64][]tracetest.SpanStub{}
	for _, s := range tr.exp.GetSpans() {
		if s.Name != name {
			continue
		}
		for _, kv := range s.Attributes {
			if kv.Key == "messaging.message.id" {
				out[kv.Value.AsInt64()] = append(out[kv.Value.AsInt64()], s)
			}
		}
	}
	return out
}

// attr returns the attribute key of s.
func attr(s tracetest.SpanStub, key attribute.Key) attribute.Value {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

// tracedMaster starts a master traced by tr, whose results go to the
// returned channel. The spans of an item have ended once its result is
// there: the master's ends as it is emitted, the worker's before its
// outcome is sent.
func tracedMaster(t *testing.T, tr traced, cfg remote.Config[int]) (*remote.Node, agent.Handle[int, remote.Status], chan remote.Result[int]) {
	t.Helper()
	node, rt := nodeAndRuntime(t, agent.WithTracerProvider(tr.tp))
	cfg.Node = node
	out := make(chan remote.Result[int], 100)
	h, err := remote.New[int, int](rt, cfg, func(r remote.Result[int]) { out <- r })
	require.NoError(t, err)
	return node, h, out
}

// goWork runs a worker of cfg in the process until the test ends; one
// that stops before fails the test, saying why.
func goWork(t *testing.T, cfg remote.WorkerConfig, work func(context.Context, int) (int, error)) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := remote.Work(ctx, cfg, work); err != nil && ctx.Err() == nil {
			t.Errorf("the worker of tags %v stopped: %v", cfg.Tags, err)
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// postUnder posts items 0..n-1 to h, each under a root span of its own.
func postUnder(t *testing.T, tr traced, h agent.Handle[int, remote.Status], n int) {
	for i := range n {
		ctx, span := tr.tp.Tracer("test").Start(context.Background(), "post")
		require.NoError(t, h.Post(ctx, i))
		span.End()
	}
}

// results takes n results from out, within a bound.
func results(t *testing.T, out chan remote.Result[int], n int) []remote.Result[int] {
	t.Helper()
	var rs []remote.Result[int]
	for range n {
		select {
		case r := <-out:
			rs = append(rs, r)
		case <-time.After(20 * time.Second):
			t.Fatalf("%d of %d results came", len(rs), n)
		}
	}
	return rs
}

// TestWorkSpansAreChildrenOfTheMastersSpans: a master and a worker, each
// with a tracer provider of its own as two processes would have; the
// worker's span of each attempt is a child of the item's span on the
// master, in its trace, with the attempt, the worker's address and, for a
// failed one, its error; a retry is a second span under the same parent;
// the spans the work starts nest under the worker's.
func TestWorkSpansAreChildrenOfTheMastersSpans(t *testing.T) {
	mtr, wtr := newTraced(t), newTraced(t)
	node, h, out := tracedMaster(t, mtr, remote.Config[int]{Name: "traced", MaxAttempts: 2})
	goWork(t, remote.WorkerConfig{Master: node.Addr(), Stage: "traced", Slots: 2, TracerProvider: wtr.tp},
		func(ctx context.Context, v int) (int, error) {
			_, span := wtr.tp.Tracer("user").Start(ctx, "user")
			span.End()
			if v == 3 {
				return 0, errors.New("three fails")
			}
			return 2 * v, nil
		})
	const n = 5
	postUnder(t, mtr, h, n)
	rs := results(t, out, n)
	for _, r := range rs {
		if r.Seq == 3 {
			assert.ErrorContains(t, r.Err, "three fails")
		}
	}

	process, work := mtr.named("process traced"), wtr.named("work traced")
	users := map[oteltrace.SpanID]tracetest.SpanStub{}
	for _, s := range wtr.exp.GetSpans() {
		if s.Name == "user" {
			users[s.Parent.SpanID()] = s
		}
	}
	for i := range int64(n) {
		require.Len(t, process[i], 1, "item %d", i)
		p := process[i][0].SpanContext
		attempts := work[i]
		want := 1
		if i == 3 {
			want = 2
		}
		require.Len(t, attempts, want, "the attempts at item %d", i)
		for k, w := range attempts {
			assert.Equal(t, p.TraceID(), w.SpanContext.TraceID(), "item %d: the work is in the item's trace", i)
			assert.Equal(t, p.SpanID(), w.Parent.SpanID(), "item %d: the work's parent is the item's span on the master", i)
			assert.True(t, w.Parent.IsRemote(), "item %d: the parent came over the wire", i)
			assert.Equal(t, oteltrace.SpanKindConsumer, w.SpanKind)
			assert.Equal(t, int64(k+1), attr(w, "evolve.attempt").AsInt64(), "item %d", i)
			assert.True(t, strings.HasPrefix(attr(w, "evolve.worker").AsString(), "127.0.0.1:"), "the worker's address: %q", attr(w, "evolve.worker").AsString())
			u, ok := users[w.SpanContext.SpanID()]
			assert.True(t, ok, "item %d: the work's own span nests under the attempt's", i)
			assert.Equal(t, p.TraceID(), u.SpanContext.TraceID())
			if i == 3 {
				assert.Equal(t, codes.Error, w.Status.Code)
				require.Len(t, w.Events, 1)
				assert.Equal(t, "exception", w.Events[0].Name)
			} else {
				assert.Equal(t, codes.Unset, w.Status.Code)
			}
		}
	}
}

// TestAMovedItemsNextHopIsInItsTrace: an item whose work on a worker of
// tag "a" moves it to tag "b" has that span end with a "move" event, and
// the span of the next hop, on a worker of tag "b", is a child of the
// item's span on the master too; a worker that holds both tags goes on
// with the item itself, under the same span, its event local.
func TestAMovedItemsNextHopIsInItsTrace(t *testing.T) {
	work := func(ctx context.Context, v int) (int, error) {
		if v < 10 {
			return 0, remote.Move("b", v+10)
		}
		return v + 1, nil
	}
	for _, tc := range []struct {
		name    string
		workers [][]string
		spans   int
		local   bool
	}{
		{"two workers", [][]string{{"a"}, {"b"}}, 2, false},
		{"one worker of both tags", [][]string{{"a", "b"}}, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mtr, wtr := newTraced(t), newTraced(t)
			node, h, out := tracedMaster(t, mtr, remote.Config[int]{Name: "moves", Tag: func(int) string { return "a" }})
			for _, tags := range tc.workers {
				goWork(t, remote.WorkerConfig{Master: node.Addr(), Stage: "moves", Slots: 1, Tags: tags, TracerProvider: wtr.tp}, work)
			}
			postUnder(t, mtr, h, 1)
			r := results(t, out, 1)[0]
			require.NoError(t, r.Err)
			require.Equal(t, 11, r.Value)

			p := mtr.named("process moves")[0]
			require.Len(t, p, 1)
			hops := wtr.named("work moves")[0]
			require.Len(t, hops, tc.spans)
			for _, w := range hops {
				assert.Equal(t, p[0].SpanContext.TraceID(), w.SpanContext.TraceID())
				assert.Equal(t, p[0].SpanContext.SpanID(), w.Parent.SpanID())
			}
			first := hops[0]
			require.Len(t, first.Events, 1)
			assert.Equal(t, "move", first.Events[0].Name)
			assert.Contains(t, first.Events[0].Attributes, attribute.String("evolve.tag", "b"))
			assert.Contains(t, first.Events[0].Attributes, attribute.Bool("evolve.local", tc.local))
			if tc.spans == 2 {
				assert.Equal(t, int64(1), attr(hops[1], "evolve.hops").AsInt64(), "the next hop counts the move")
				assert.NotEqual(t, attr(hops[0], "evolve.worker"), attr(hops[1], "evolve.worker"))
			}
		})
	}
}

// TestAWorkerWithoutATracerCarriesTheItemsSpanContext: a worker with no
// tracer provider starts no span, but its work's context carries the
// context of the item's span on the master; and a worker with one, whose
// master traces nothing, starts each attempt's span as a new trace.
func TestAWorkerWithoutATracerCarriesTheItemsSpanContext(t *testing.T) {
	mtr := newTraced(t)
	node, h, out := tracedMaster(t, mtr, remote.Config[int]{Name: "bare"})
	seen := make(chan oteltrace.SpanContext, 1)
	goWork(t, remote.WorkerConfig{Master: node.Addr(), Stage: "bare", Slots: 1}, func(ctx context.Context, v int) (int, error) {
		seen <- oteltrace.SpanContextFromContext(ctx)
		return v, nil
	})
	postUnder(t, mtr, h, 1)
	results(t, out, 1)
	sc := <-seen
	p := mtr.named("process bare")[0]
	require.Len(t, p, 1)
	assert.Equal(t, p[0].SpanContext.TraceID(), sc.TraceID())
	assert.Equal(t, p[0].SpanContext.SpanID(), sc.SpanID())
	assert.True(t, sc.IsRemote())

	wtr := newTraced(t)
	node2, rt := nodeAndRuntime(t)
	out2 := make(chan remote.Result[int], 1)
	h2, err := remote.New[int, int](rt, remote.Config[int]{Node: node2, Name: "untraced"}, func(r remote.Result[int]) { out2 <- r })
	require.NoError(t, err)
	goWork(t, remote.WorkerConfig{Master: node2.Addr(), Stage: "untraced", Slots: 1, TracerProvider: wtr.tp}, func(_ context.Context, v int) (int, error) { return v, nil })
	require.NoError(t, h2.Post(context.Background(), 7))
	results(t, out2, 1)
	w := wtr.named("work untraced")[0]
	require.Len(t, w, 1)
	assert.False(t, w[0].Parent.IsValid(), "a task that carries no trace context starts a new trace")
}
