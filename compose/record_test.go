package compose_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// A chain that records writes a header naming its stages, then their
// steps, and the status each ended with (once, though metrics ask for it
// all along), and replays through the same stages.
func TestARecordingChainReplays(t *testing.T) {
	var rec bytes.Buffer
	s := stages(t, parallel.Config{Limit: 3, Queue: 8}, buffer.Config[int]{Size: 5})
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		var got [][]int
		c, err := compose.Start(rt, s, func(b []int) { got = append(got, b) }, compose.WithRecording(&rec))
		require.NoError(t, err)
		postRange(t, c, 60)
		c.Close()
		require.NoError(t, c.Wait(context.Background()))
		<-c.Done()
		assert.Equal(t, doubles(60), flatten(got))
	}, agent.WithMeterProvider(mp))
	first, _, _ := strings.Cut(rec.String(), "\n")
	assert.Contains(t, first, `"agents":["rate","parallel","buffer"]`)
	assert.Equal(t, 3, strings.Count(rec.String(), `"final":`))
	res, err := replay.Run(s, &rec)
	require.NoError(t, err)
	assert.Positive(t, res.Messages)
}

// The overflow stage DropOldest puts in front of a chain is not recorded:
// the recording is of the chain's own stages.
func TestADropOldestChainRecordsItsOwnStages(t *testing.T) {
	var rec bytes.Buffer
	s := stages(t, parallel.Config{Limit: 2}, buffer.Config[int]{Size: 4})
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		c, err := compose.Start(rt, s, nil, compose.WithOverflow(compose.DropOldest), compose.WithRecording(&rec))
		require.NoError(t, err)
		postRange(t, c, 40)
		c.Close()
		require.NoError(t, c.Wait(context.Background()))
	})
	assert.NotContains(t, rec.String(), `"name":"overflow"`)
	_, err := replay.Run(s, &rec)
	require.NoError(t, err)
}

// brokenWriter fails every write after the first.
type brokenWriter struct{ n int }

func (w *brokenWriter) Write(p []byte) (int, error) {
	if w.n++; w.n > 1 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// A writer that fails stops the recording, not the chain: every value
// still arrives, and Wait reports the failure.
func TestAFailingWriterIsReportedByWait(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		var got [][]int
		c, err := compose.Start(rt, stages(t, parallel.Config{Limit: 4}, buffer.Config[int]{Size: 10}),
			func(b []int) { got = append(got, b) }, compose.WithRecording(&brokenWriter{}))
		require.NoError(t, err)
		postRange(t, c, 100)
		c.Close()
		err = c.Wait(context.Background())
		require.ErrorIs(t, err, compose.ErrRecording)
		assert.ErrorContains(t, err, "disk full")
		assert.Equal(t, doubles(100), flatten(got))
	})
}

// secretItem has a field a recording cannot read back.
type secretItem struct {
	N      int
	hidden int
}

// An item a recording cannot write down stops the recording with an error
// naming the agent, its step and the type; the chain runs on.
func TestAnItemThatCannotBeRecordedIsReportedByWait(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		work, err := parallel.Stage(parallel.Config{Limit: 2}, func(_ context.Context, v secretItem) (int, error) { return v.N + v.hidden, nil })
		require.NoError(t, err)
		sum := 0
		c, err := compose.Start(rt, work, func(v int) { sum += v }, compose.WithRecording(&bytes.Buffer{}))
		require.NoError(t, err)
		for i := range 10 {
			require.NoError(t, c.Post(context.Background(), secretItem{N: i}))
		}
		c.Close()
		err = c.Wait(context.Background())
		require.ErrorIs(t, err, compose.ErrRecording)
		assert.ErrorContains(t, err, "agent 0 (parallel), step 2: cannot record a compose_test.secretItem: its field hidden is unexported")
		assert.Equal(t, 45, sum)
	})
}
