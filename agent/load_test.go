package agent_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func logged(t *testing.T, l agent.Load) map[string]any {
	t.Helper()
	var b bytes.Buffer
	log := zerolog.New(&b)
	log.Info().Object("load", l).Send()
	var ev struct{ Load map[string]any }
	require.NoError(t, json.Unmarshal(b.Bytes(), &ev))
	return ev.Load
}

func TestALoadLogsItsFieldsAndUnboundedDemandAsAWord(t *testing.T) {
	assert.Equal(t, map[string]any{"queued": 1.0, "in_flight": 2.0, "done": 3.0, "failed": 4.0, "demand": 5.0},
		logged(t, agent.Load{Queued: 1, InFlight: 2, Done: 3, Failed: 4, Demand: 5}))
	assert.Equal(t, "unbounded", logged(t, agent.Load{Demand: agent.Unbounded})["demand"])
	assert.Equal(t, "unbounded", logged(t, agent.Load{Demand: agent.Unbounded - 1000})["demand"],
		"an unbounded demand goes down as values pass, and stays unbounded")
}
