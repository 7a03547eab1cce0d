package remote_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/fields"
	"github.com/evolvekit/evolve/remote"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStatusIsLoggedWithItsWorkersAndTags(t *testing.T) {
	st := remote.Status{
		Load:       agent.Load{Queued: 3, InFlight: 2, Done: 5, Failed: 1, Demand: agent.Unbounded},
		Workers:    []remote.WorkerStatus{{ID: 1, Addr: "127.0.0.1:9", Tags: []string{"gpu"}, Slots: 4, Free: 1, InFlight: 2, Done: 5, Failed: 1}},
		Tags:       map[string]int{"": 1, "gpu": 2},
		Waiting:    2,
		Requeued:   4,
		Duplicates: 1,
	}
	var buf bytes.Buffer
	log := zerolog.New(&buf)
	log.Info().EmbedObject(fields.Object(st)).Msg("")
	var got map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &got))
	assert.Equal(t, "unbounded", got["demand"])
	assert.EqualValues(t, 4, got["requeued"])
	assert.EqualValues(t, 1, got["duplicates"])
	assert.EqualValues(t, 2, got["waiting"])
	assert.Equal(t, map[string]any{"": 1.0, "gpu": 2.0}, got["tags"])
	workers := got["workers"].([]any)
	require.Len(t, workers, 1)
	w := workers[0].(map[string]any)
	assert.Equal(t, "127.0.0.1:9", w["addr"])
	assert.Equal(t, []any{"gpu"}, w["tags"])
	assert.EqualValues(t, 2, w["in_flight"])
}
