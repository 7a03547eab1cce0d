package trace_test

import (
	"context"
	"strings"
	"testing"

	"github.com/evolvekit/evolve/internal/trace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	otrace "go.opentelemetry.io/otel/trace"
)

// remoteContext returns a span context as a peer's would come, with a
// tracestate, sampled or not.
func remoteContext(t *testing.T, sampled bool) otrace.SpanContext {
	t.Helper()
	ts, err := otrace.ParseTraceState("vendor=abc,other=1")
	if err != nil {
		t.Fatal(err)
	}
	cfg := otrace.SpanContextConfig{
		TraceID:    otrace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     otrace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceState: ts,
		Remote:     true,
	}
	if sampled {
		cfg.TraceFlags = otrace.FlagsSampled
	}
	return otrace.NewSpanContext(cfg)
}

func TestTraceparentGoesThereAndBack(t *testing.T) {
	for _, sampled := range []bool{true, false} {
		sc := remoteContext(t, sampled)
		parent, state := trace.Traceparent(sc)
		want := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"
		if sampled {
			want = want[:len(want)-2] + "01"
		}
		if parent != want || state != "vendor=abc,other=1" {
			t.Fatalf("Traceparent = %q, %q; want %q and the tracestate", parent, state, want)
		}
		got := otrace.SpanContextFromContext(trace.Extract(context.Background(), parent, state))
		if !got.Equal(sc) {
			t.Errorf("the context read back is %+v; want %+v", got, sc)
		}
	}
	if p, s := trace.Traceparent(otrace.SpanContext{}); p != "" || s != "" {
		t.Errorf("an invalid context gives %q, %q; want nothing", p, s)
	}
}

// TestMalformedTraceContextIsNoParent: what a peer sends is read with
// TraceContext's checks; anything malformed leaves the context as it was.
func TestMalformedTraceContextIsNoParent(t *testing.T) {
	good := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for _, parent := range []string{
		"", "garbage", good[:54], good + "-extra", strings.ToUpper(good[:2]) + "x" + good[3:],
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01", // zero trace ID
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", // zero span ID
		"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", // version ff
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-09", // flags version 00 has not
		strings.Repeat("0", 1<<16),
	} {
		ctx := trace.Extract(context.Background(), parent, "vendor=abc")
		if sc := otrace.SpanContextFromContext(ctx); sc.IsValid() {
			t.Errorf("Extract(%.60q) = %v; want no context", parent, sc)
		}
	}
	ctx := trace.Extract(context.Background(), good, "not a tracestate ,,, ===")
	if sc := otrace.SpanContextFromContext(ctx); !sc.IsValid() || sc.TraceState().Len() != 0 {
		t.Errorf("a malformed tracestate: %v; want the traceparent kept, the state dropped", sc)
	}
}

// TestLineContextIsTheItemsSpan: Context names the span of an item the
// line holds, and nothing once the item is passed on.
func TestLineContextIsTheItemsSpan(t *testing.T) {
	tp := sdktrace.NewTracerProvider()
	l := trace.NewLine(trace.New(tp), "a", false)
	l.Accept(l.Begin(context.Background()))
	sc := l.Context(0)
	if !sc.IsValid() || !sc.IsSampled() {
		t.Fatalf("Context(0) = %v; want the item's span", sc)
	}
	if l.Context(1).IsValid() {
		t.Error("Context of an item never accepted is valid")
	}
	l.EmitNext()
	l.Pass(nil)
	if l.Context(0).IsValid() {
		t.Error("Context of an item passed on is valid")
	}
	var none *trace.Line
	if none.Context(0).IsValid() {
		t.Error("a nil line has a context")
	}
}

// FuzzExtract: whatever a peer sends as a trace context, Extract does not
// panic, and a context it accepts goes out again as the same.
func FuzzExtract(f *testing.F) {
	f.Add("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "vendor=abc")
	f.Add("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", "")
	f.Add("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what", "a=1,b=2")
	f.Add("garbage", "===")
	f.Fuzz(func(t *testing.T, parent, state string) {
		sc := otrace.SpanContextFromContext(trace.Extract(context.Background(), parent, state))
		if !sc.IsValid() {
			return
		}
		p, s := trace.Traceparent(sc)
		again := otrace.SpanContextFromContext(trace.Extract(context.Background(), p, s))
		if !again.Equal(sc) {
			t.Fatalf("%q, %q read as %v, written as %q, %q, read again as %v", parent, state, sc, p, s, again)
		}
	})
}
