package compose_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// tracedChain runs rate, parallel and buffer on a runtime traced by tp,
// posts items (the first with parent's context) and returns the batches
// the sink saw. The parallel stage's work fails "flaky" once and "bad"
// always, and starts a span of its own named "user".
func tracedChain(t *testing.T, tp trace.TracerProvider, parent context.Context, items ...string) [][]string {
	t.Helper()
	rt := agent.NewRuntime(agent.WithTracerProvider(tp))
	defer rt.Shutdown(context.Background())
	limit, err := rate.Stage(rate.Config[string]{Name: "limit", Rate: 1e6, Burst: 100})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	tried := map[string]int{}
	upper, err := parallel.Stage(parallel.Config{Name: "upper", Limit: 2, Retry: parallel.Retry{Attempts: 2, Backoff: time.Microsecond}},
		func(ctx context.Context, w string) (string, error) {
			_, span := tp.Tracer("user").Start(ctx, "user")
			defer span.End()
			mu.Lock()
			tried[w]++
			n := tried[w]
			mu.Unlock()
			if w == "bad" || (w == "flaky" && n == 1) {
				return "", errors.New("no " + w)
			}
			return strings.ToUpper(w), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	lines, err := buffer.Stage(buffer.Config[string]{Name: "lines", Size: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	chain, err := compose.Start(rt, compose.Pipe3(limit, upper, lines), func(b []string) { got = append(got, b) },
		compose.WithDeadLetters(func(agent.DeadLetter) {}))
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range items {
		ctx := context.Background()
		if i == 0 {
			ctx = parent
		}
		if err := chain.Post(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	chain.Close()
	_ = chain.Wait(context.Background()) // the dead letter's error
	return got
}

// spansOf returns the spans of each trace, by trace ID.
func spansOf(spans tracetest.SpanStubs) map[trace.TraceID][]tracetest.SpanStub {
	by := map[trace.TraceID][]tracetest.SpanStub{}
	for _, s := range spans {
		id := s.SpanContext.TraceID()
		by[id] = append(by[id], s)
	}
	return by
}

// named returns the spans of spans called name.
func named(spans []tracetest.SpanStub, name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// one returns the one span of spans called name, failing t otherwise.
func one(t *testing.T, spans []tracetest.SpanStub, name string) tracetest.SpanStub {
	t.Helper()
	got := named(spans, name)
	if len(got) != 1 {
		t.Fatalf("%d spans %q, want 1", len(got), name)
	}
	return got[0]
}

func attr(s tracetest.SpanStub, key string) attribute.Value {
	for _, a := range s.Attributes {
		if string(a.Key) == key {
			return a.Value
		}
	}
	return attribute.Value{}
}

func TestTraceFollowsEachItem(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	parent, root := tp.Tracer("test").Start(context.Background(), "request")
	got := tracedChain(t, tp, parent, "a", "b", "flaky", "bad")
	root.End()
	if len(got) != 2 || len(got[0])+len(got[1]) != 3 {
		t.Fatalf("batches %v, want a, b and flaky in two", got)
	}
	traces := spansOf(exp.GetSpans())

	// a continues the trace of its Post's context, a span per stage, each
	// a child of the one before.
	a := traces[root.SpanContext().TraceID()]
	lim, up := one(t, a, "process limit"), one(t, a, "process upper")
	if lim.Parent.SpanID() != root.SpanContext().SpanID() {
		t.Errorf("limit's span is not a child of the Post's")
	}
	if up.Parent.SpanID() != lim.SpanContext.SpanID() {
		t.Errorf("upper's span is not a child of limit's")
	}
	work := one(t, a, "work upper")
	if work.Parent.SpanID() != up.SpanContext.SpanID() {
		t.Errorf("the work's span is not a child of upper's")
	}
	if one(t, a, "user").Parent.SpanID() != work.SpanContext.SpanID() {
		t.Errorf("the work's own span is not a child of its attempt's")
	}
	lines := one(t, a, "process lines")
	if lines.Parent.SpanID() != up.SpanContext.SpanID() {
		t.Errorf("lines' span is not a child of upper's")
	}
	if !lim.EndTime.After(lim.StartTime) || up.StartTime.Before(lim.EndTime.Add(-time.Second)) {
		t.Errorf("stage spans out of order: limit %v-%v, upper from %v", lim.StartTime, lim.EndTime, up.StartTime)
	}

	// Every other item is a trace of its own, rooted in the first stage.
	if len(traces) < 4 {
		t.Fatalf("%d traces, want one per item and the batches'", len(traces))
	}
	var flaky, bad []tracetest.SpanStub
	for id, spans := range traces {
		if id == root.SpanContext().TraceID() {
			continue
		}
		if lim := named(spans, "process limit"); len(lim) == 1 {
			if lim[0].Parent.IsValid() {
				t.Errorf("a trace of its own has a parent")
			}
			switch attr(lim[0], "messaging.message.id").AsInt64() {
			case 2:
				flaky = spans
			case 3:
				bad = spans
			}
		}
	}

	// flaky: its failed attempt recorded, its retry a second attempt.
	works := named(flaky, "work upper")
	if len(works) != 2 {
		t.Fatalf("flaky has %d attempts, want 2", len(works))
	}
	for _, w := range works {
		failed := attr(w, "evolve.attempt").AsInt64() == 1
		if failed != (w.Status.Code == codes.Error) || failed != (len(w.Events) == 1 && w.Events[0].Name == "exception") {
			t.Errorf("attempt %d: status %v, events %v", attr(w, "evolve.attempt").AsInt64(), w.Status, w.Events)
		}
	}
	one(t, flaky, "process lines")

	// bad: a dead letter, and no further stage.
	badUp := one(t, bad, "process upper")
	if badUp.Status.Code != codes.Error || len(named(bad, "process lines")) != 0 {
		t.Errorf("bad: status %v, lines spans %d", badUp.Status, len(named(bad, "process lines")))
	}
	dead := false
	for _, e := range badUp.Events {
		dead = dead || e.Name == "dead letter"
	}
	if !dead {
		t.Errorf("bad's span has no dead letter event: %v", badUp.Events)
	}

	// The batches: one span each, linked to their items' spans.
	var batches []tracetest.SpanStub
	for _, spans := range traces {
		batches = append(batches, named(spans, "batch lines")...)
	}
	links := 0
	for _, b := range batches {
		links += len(b.Links)
		for _, l := range b.Links {
			if l.SpanContext.SpanID() == lines.SpanContext.SpanID() {
				lines = tracetest.SpanStub{} // found
			}
		}
	}
	if len(batches) != 2 || links != 3 || lines.SpanContext.IsValid() {
		t.Errorf("%d batch spans with %d links, a's found %v; want 2 with 3, found", len(batches), links, !lines.SpanContext.IsValid())
	}
}

func TestTraceNeverSampledRecordsNothing(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithSampler(sdktrace.NeverSample()))
	defer tp.Shutdown(context.Background())
	got := tracedChain(t, tp, context.Background(), "a", "b", "flaky", "bad")
	if len(got) != 2 {
		t.Fatalf("batches %v, want 2", got)
	}
	if n := len(exp.GetSpans()); n != 0 {
		t.Errorf("%d spans recorded, want none", n)
	}
}

// allocsPerItem returns the allocations per item, over the whole process,
// of posting 1000 items to a rate and a parallel agent on a runtime made
// with opts and waiting for the last at the sink.
func allocsPerItem(t *testing.T, opts ...agent.Option) float64 {
	t.Helper()
	const n = 1000
	rt := agent.NewRuntime(opts...)
	defer rt.Shutdown(context.Background())
	limit, err := rate.Stage(rate.Config[int]{Name: "limit", Rate: 1e12, Burst: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	twice, err := parallel.Stage(parallel.Config{Name: "twice", Limit: 2}, func(_ context.Context, v int) (int, error) { return 2 * v, nil })
	if err != nil {
		t.Fatal(err)
	}
	seen, all := 0, make(chan struct{})
	chain, err := compose.Start(rt, compose.Pipe2(limit, twice), func(int) {
		if seen++; seen%n == 0 {
			all <- struct{}{}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		chain.Close()
		_ = chain.Wait(context.Background())
	}()
	return testing.AllocsPerRun(5, func() {
		for i := range n {
			if err := chain.Post(context.Background(), i); err != nil {
				t.Fatal(err)
			}
		}
		<-all
	}) / n
}

// Without a TracerProvider, tracing allocates nothing per item: the chain
// allocates less than one object per two items (its batches), where a
// provider whose sampler records nothing costs at least one an item (its
// first span).
func TestTraceWithoutAProviderAllocatesNothingPerItem(t *testing.T) {
	if testing.Short() {
		t.Skip("allocations are counted over the whole process")
	}
	off := allocsPerItem(t)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
	defer tp.Shutdown(context.Background())
	on := allocsPerItem(t, agent.WithTracerProvider(tp))
	t.Logf("allocations per item: %.2f untraced, %.2f traced, never sampled", off, on)
	if off >= 0.5 || on < 1 {
		t.Errorf("allocations per item: %.2f untraced (want < 0.5), %.2f traced, never sampled (want >= 1)", off, on)
	}
}

// An unordered parallel stage passes its items on as their work ends, not
// in the order it took them: each item's work span is still under its own
// stage span, and the stage after it continues each item's trace.
func TestTraceFollowsAnUnorderedParallelStage(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	rt := agent.NewRuntime(agent.WithTracerProvider(tp))
	defer rt.Shutdown(context.Background())
	// "a" ends only once the stage after has taken "b": b is passed on first.
	bPassed := make(chan struct{})
	work, err := parallel.Stage(parallel.Config{Name: "work", Limit: 2, MaxBatch: 1, Unordered: true},
		func(ctx context.Context, w string) (string, error) {
			_, span := tp.Tracer("user").Start(ctx, "user "+w)
			defer span.End()
			if w == "a" {
				<-bPassed
			}
			return w, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	after, err := parallel.Stage(parallel.Config{Name: "after", Limit: 1}, func(_ context.Context, w string) (string, error) {
		if w == "b" {
			close(bPassed)
		}
		return w, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	chain, err := compose.Start(rt, compose.Pipe2(work, after), func(w string) { got = append(got, w) })
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"a", "b"} {
		if err := chain.Post(context.Background(), w); err != nil {
			t.Fatal(err)
		}
	}
	chain.Close()
	if err := chain.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "b" {
		t.Fatalf("passed on %v, want b before a", got)
	}
	traces := spansOf(exp.GetSpans())
	if len(traces) != 2 {
		t.Fatalf("%d traces, want one per item", len(traces))
	}
	for _, spans := range traces {
		stage := one(t, spans, "process work")
		w := []string{"a", "b"}[attr(stage, "messaging.message.id").AsInt64()]
		attempt := one(t, spans, "work work")
		if attempt.Parent.SpanID() != stage.SpanContext.SpanID() || attr(attempt, "messaging.message.id") != attr(stage, "messaging.message.id") {
			t.Errorf("%s: its work span is not under its own stage span", w)
		}
		if one(t, spans, "user "+w).Parent.SpanID() != attempt.SpanContext.SpanID() {
			t.Errorf("%s: the work's own span is not under its attempt's", w)
		}
		if one(t, spans, "process after").Parent.SpanID() != stage.SpanContext.SpanID() {
			t.Errorf("%s: the next stage's span is not a child of its own", w)
		}
	}
}
