package record

import (
	"bytes"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gatedWriter takes writes once open is closed, and counts the bytes.
type gatedWriter struct {
	open chan struct{}
	n    atomic.Int64
	err  error
}

func (w *gatedWriter) Write(p []byte) (int, error) {
	<-w.open
	w.n.Add(int64(len(p)))
	return len(p), w.err
}

// An agent hands its batches over without waiting while the writer keeps
// up, and waits once maxQueued bytes wait for it, until it catches up.
func TestARecorderHoldsAgentsBackOnlyWhenTheWriterFallsBehind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &gatedWriter{open: make(chan struct{})}
		r := New(w, time.Now(), []string{"a"})
		tp := r.Tape(0, "a").(*tape)
		var handed atomic.Int64
		go func() {
			for range maxQueued/batchSize + 8 {
				tp.enc.buf = append(tp.enc.buf[:0], make([]byte, batchSize)...)
				tp.handOver()
				handed.Add(1)
			}
			tp.Close()
		}()
		synctest.Wait()
		assert.Equal(t, int64(maxQueued/batchSize), handed.Load(), "the writer is 4 MiB behind: the agent waits")
		r.Seal()
		close(w.open)
		<-r.Done()
		assert.Equal(t, int64(maxQueued/batchSize+8), handed.Load())
		assert.NoError(t, r.Err())
	})
}

// A writer's error stops the recording: the agents stop encoding, and Err
// returns it.
func TestAWriteErrorStopsTheRecording(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &gatedWriter{open: make(chan struct{}), err: errors.New("disk full")}
		close(w.open)
		r := New(w, time.Now(), []string{"a"})
		tp := r.Tape(0, "a").(*tape)
		synctest.Wait() // the header fails to write
		require.ErrorContains(t, r.Err(), "writing: disk full")
		tp.Before(agent.Pull{N: 1})
		tp.After(nil)
		assert.True(t, tp.off)
		assert.Empty(t, tp.enc.buf, "nothing more is encoded")
		tp.Close()
		r.Seal()
		<-r.Done()
	})
}

// A tape writes each step as a line: the agent, the step, the instant
// after the base, the message and the effects; a step whose evolve
// panicked, and the final status, as lines of their own.
func TestATapeWritesOneLinePerStep(t *testing.T) {
	var out bytes.Buffer
	base := time.Now()
	r := New(&out, base, []string{"a", "b"})
	tp := r.Tape(1, "b").(*tape)
	assert.True(t, r.Tape(2, "c") == nil, "no tape past the last agent recorded")
	assert.True(t, r.From(-1).Recorder.Tape(-1, "gate") == nil, "none before the first")
	tp.Before(agent.Input[int]{At: base.Add(time.Millisecond), Items: []int{1, 2}})
	tp.After([]agent.Effect{agent.Demand{N: 2}, agent.Emit[string]{Values: []string{"x"}}})
	tp.Before(agent.Close{At: base.Add(2 * time.Millisecond)}) // evolve panics on it
	tp.Final(base.Add(3*time.Millisecond), 7, true)
	tp.Close()
	r.Seal()
	<-r.Done()
	require.NoError(t, r.Err())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 4)
	assert.Contains(t, lines[0], `"agents":["a","b"]`)
	assert.Equal(t, `{"agent":1,"name":"b","step":1,"at":1000000,"msg":{"Input":{"Items":[1,2]}},"fx":[{"Demand":{"N":2}},{"Emit":{"Values":["x"]}}]}`, lines[1])
	assert.Equal(t, `{"agent":1,"name":"b","step":2,"at":2000000,"msg":{"Close":{}},"panic":true}`, lines[2])
	assert.Equal(t, `{"agent":1,"name":"b","step":2,"at":3000000,"final":7}`, lines[3])

	rd, err := Read(strings.NewReader(out.String()))
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, rd.Agents())
	e, err := rd.Next()
	require.NoError(t, err)
	assert.Equal(t, 1, e.Agent)
	assert.Equal(t, 1, e.Step)
	assert.Equal(t, time.Millisecond, e.At.Sub(rd.Base()))
	assert.Equal(t, "Input", e.Kind())
	e, err = rd.Next()
	require.NoError(t, err)
	assert.True(t, e.Panicked)
	e, err = rd.Next()
	require.NoError(t, err)
	assert.True(t, e.Final)
	assert.Equal(t, "7", string(e.Status()))
}
