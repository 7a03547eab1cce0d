package core_test

import (
	"context"
	"errors"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A traced chain runs its MapOut and MapIn functions once per value, as an
// untraced one does, and the spans still follow the values they keep: the
// second agent's spans are children of the first's spans of the same items.
func TestMapInAndMapOutRunOncePerValueWhenTraced(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		outs, ins := 0, 0
		odd := core.MapOut(echoStage(), func(v int) (int, bool) { outs++; return v, v%2 == 1 }) // the agent's round
		notThree := core.MapIn(echoStage(), func(v int) (int, error) {                          // the round of the agent before
			ins++
			if v == 3 {
				return 0, errors.New("three")
			}
			return v, nil
		})
		var got []int
		r, err := core.Link(odd, notThree).Start(rt, core.Inlet{}, core.SinkOutlet(func(v int) { got = append(got, v) }))
		require.NoError(t, err)
		for v := 1; v <= 6; v++ {
			require.NoError(t, r.Head.Post(context.Background(), v))
		}
		r.Head.Close()
		var errs []error
		for _, m := range r.Members {
			errs = append(errs, m.Wait(context.Background()))
		}
		require.ErrorContains(t, errors.Join(errs...), "three")
		assert.Equal(t, []int{1, 5}, got)
		assert.Equal(t, 6, outs, "MapOut ran on each of the 6 values once")
		assert.Equal(t, 3, ins, "MapIn ran on each of the 3 values MapOut kept once")
	}, agent.WithTracerProvider(tp))

	// Each span of the second agent is a child of the first agent's span
	// of the same item: Seq 0 (1) and 4 (5), their second agent's 0 and 1.
	first := map[[8]byte]int64{}
	for _, s := range exp.GetSpans() {
		if !s.Parent.IsValid() {
			first[s.SpanContext.SpanID()] = attr(s, "messaging.message.id")
		}
	}
	var parents []int64
	for _, s := range exp.GetSpans() {
		if s.Parent.IsValid() {
			seq, ok := first[s.Parent.SpanID()]
			require.True(t, ok, "a second agent's span's parent is a first agent's")
			parents = append(parents, seq)
		}
	}
	assert.Len(t, first, 6)
	assert.ElementsMatch(t, []int64{0, 4}, parents)
}

// attr returns the integer attribute key of s, or -1.
func attr(s tracetest.SpanStub, key string) int64 {
	for _, a := range s.Attributes {
		if string(a.Key) == key {
			return a.Value.AsInt64()
		}
	}
	return -1
}
