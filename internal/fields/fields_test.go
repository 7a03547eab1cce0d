package fields

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// written returns what Object writes of v, decoded.
func written(t *testing.T, v any) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	log := zerolog.New(&buf)
	log.Log().Object("v", Object(v)).Send()
	var out struct{ V map[string]any }
	require.NoError(t, json.Unmarshal(buf.Bytes(), &out), buf.String())
	return out.V
}

type level int

func (l level) String() string { return [...]string{"low", "high"}[l] }

type worker struct {
	ID   uint64
	Addr string
}

type inner struct {
	Count int
}

type self struct{}

func (self) MarshalZerologObject(e *zerolog.Event) { e.Str("mine", "yes") }

type all struct {
	agent.Load
	hidden   int
	Rate     float64
	Closed   bool
	Wait     time.Duration
	Oldest   time.Time
	Since    time.Time
	Err      error
	None     error
	Level    level
	Workers  []worker
	ByTag    map[string]int
	Nested   inner
	Ptr      *inner
	NilPtr   *inner
	Own      self
	Any      any
	Names    []string
	HTTPAddr string
}

func TestEveryKindOfFieldIsWrittenByTheRule(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	got := written(t, all{
		Load: agent.Load{Queued: 1, InFlight: 2, Done: 3, Failed: 4, Demand: 5}, hidden: 9,
		Rate: 1.5, Closed: true, Wait: 2 * time.Second, Since: at, Err: errors.New("boom"), Level: 1,
		Workers: []worker{{ID: 7, Addr: "a"}}, ByTag: map[string]int{"gpu": 2, "": 1},
		Nested: inner{Count: 3}, Ptr: &inner{Count: 4}, Any: 8, Names: []string{"x"}, HTTPAddr: "h",
	})
	assert.Equal(t, map[string]any{
		"queued": 1.0, "in_flight": 2.0, "done": 3.0, "failed": 4.0, "demand": 5.0,
		"rate": 1.5, "closed": true, "wait": 2000.0, "since": at.Format(zerolog.TimeFieldFormat), "err": "boom",
		"level": "high", "workers": []any{map[string]any{"id": 7.0, "addr": "a"}},
		"by_tag": map[string]any{"": 1.0, "gpu": 2.0}, "nested": map[string]any{"count": 3.0},
		"ptr": map[string]any{"count": 4.0}, "own": map[string]any{"mine": "yes"}, "any": 8.0,
		"names": []any{"x"}, "http_addr": "h",
	}, got, "unexported fields, nil errors and pointers and zero times are left out")
}

func TestAnUnboundedDemandReadsUnbounded(t *testing.T) {
	assert.Equal(t, "unbounded", written(t, agent.Load{Demand: agent.Unbounded})["demand"])
	assert.Equal(t, "unbounded", written(t, agent.Load{Demand: agent.Unbounded / 2})["demand"])
	assert.Equal(t, "unbounded", written(t, agent.Load{Demand: agent.Unbounded - 1000})["demand"],
		"an unbounded demand goes down as values pass, and stays unbounded")
	assert.Equal(t, float64(agent.Unbounded/2-1), written(t, agent.Load{Demand: agent.Unbounded/2 - 1})["demand"])
}

func TestAStatusThatMarshalsItselfIsWrittenItsOwnWay(t *testing.T) {
	assert.Equal(t, map[string]any{"mine": "yes"}, written(t, self{}))
	assert.Equal(t, map[string]any{"count": 2.0}, written(t, &inner{Count: 2}), "a pointer to a status")
	assert.Equal(t, map[string]any{"value": 3.0}, written(t, 3), "a status that is no struct")
	assert.Empty(t, written(t, nil))
}

func TestSnakeCase(t *testing.T) {
	for name, want := range map[string]string{
		"InFlight": "in_flight", "ID": "id", "MaxWait": "max_wait", "FailedBatches": "failed_batches",
		"HTTPAddr": "http_addr", "Queued": "queued", "P99": "p99",
	} {
		assert.Equal(t, want, snake(name), name)
	}
}
