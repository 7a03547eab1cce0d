package replay_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/evolvekit/evolve/replay"
	"github.com/evolvekit/evolve/spawn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var errFlaky = errors.New("flaky")

// flakyChain is rate -> parallel -> buffer: the work sleeps 0 to 2 ms,
// fails its first attempt on items ending in 3 (asking to retry after
// 300µs) and 7, and fails every attempt on items ending in 99; the
// parallel stage tries an item 3 times, its retries at the rate's pace.
func flakyChain(t testing.TB) agent.Stage[int, []int] {
	t.Helper()
	pace, err := rate.Stage(rate.Config[int]{Rate: 20000, Burst: 8})
	require.NoError(t, err)
	var mu sync.Mutex
	tried := map[int]int{}
	work := func(ctx context.Context, v int) (int, error) {
		time.Sleep(time.Duration(rand.Int64N(int64(2 * time.Millisecond))))
		mu.Lock()
		tried[v]++
		n := tried[v]
		mu.Unlock()
		switch {
		case v%100 == 99:
			return 0, fmt.Errorf("item %d: %w", v, errFlaky)
		case v%10 == 3 && n == 1:
			return 0, agent.RetryAfter(errFlaky, 300*time.Microsecond)
		case v%10 == 7 && n == 1:
			return -1, errFlaky
		}
		return 2 * v, nil
	}
	double, err := parallel.Stage(parallel.Config{Limit: 4, Retry: parallel.Retry{Attempts: 3, Backoff: time.Millisecond, Seed: 7}}, work)
	require.NoError(t, err)
	batches, err := buffer.Stage(buffer.Config[int]{Size: 16, MaxWait: 3 * time.Millisecond}, nil)
	require.NoError(t, err)
	return compose.Pipe3(pace, double, batches)
}

// record runs flakyChain on a real runtime with 200 items, recording it,
// and returns the recording.
func record(t *testing.T) []byte {
	t.Helper()
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	var rec bytes.Buffer
	sum := 0
	c, err := compose.Start(rt, flakyChain(t), func(b []int) {
		for _, v := range b {
			sum += v
		}
	}, compose.WithRecording(&rec))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range 200 {
		require.NoError(t, c.Post(ctx, i))
		if i%50 == 0 {
			_, err := c.Status(ctx) // Queries are recorded too
			require.NoError(t, err)
		}
	}
	c.Close()
	err = c.Wait(ctx)
	require.Error(t, err, "items 99 and 199 fail for good")
	assert.NotErrorIs(t, err, compose.ErrRecording)
	assert.Equal(t, 2*(199*200/2-99-199), sum)
	return rec.Bytes()
}

// A recording of a real run, goroutines, sleeps, retries and all, replays
// through fresh agents of the same stage with every effect and every
// final status identical.
func TestRunReproducesEveryEffectOfARealRun(t *testing.T) {
	rec := record(t)
	for _, kind := range []string{`"msg":{"Input"`, `"msg":{"Done"`, `internal/pace.Pass]":`, `internal/pace.Reservation]":`, `"msg":{"Tick"`, `"msg":{"Query"`, `"msg":{"Close"`, `"retryAfter"`} {
		assert.Contains(t, string(rec), kind, "the run exercised it")
	}

	res, err := replay.Run(flakyChain(t), bytes.NewReader(rec))
	require.NoError(t, err)
	require.Len(t, res.Agents, 3)
	assert.Equal(t, bytes.Count(rec, []byte(`"msg":`)), res.Messages, "every recorded message replayed")
	for _, a := range res.Agents {
		assert.True(t, a.Ended, "%s: its final status was compared", a.Name)
		assert.Positive(t, a.Effects, a.Name)
	}
	st, ok := res.Agents[1].Status.(parallel.Status)
	require.True(t, ok)
	assert.Equal(t, 200, st.Done)
	assert.Equal(t, 2, st.Failed)
	assert.Positive(t, st.Retried)
}

// Changing the value of one recorded Done makes the replay fail at that
// step, naming the agent, the step and the effect that differs.
func TestRunNamesTheStepOfATamperedDone(t *testing.T) {
	rec := record(t)
	// A Done of the parallel agent whose effects emit a result of it.
	done := regexp.MustCompile(`^\{"agent":1,"name":"parallel","step":(\d+),.*"msg":\{"Done":\{"ID":\d+,"Result":\[\{"Seq":(\d+),"Value":(\d+),"Err":null\}`)
	var out bytes.Buffer
	step := 0
	sc := bufio.NewScanner(bytes.NewReader(rec))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if m := done.FindStringSubmatch(line); m != nil && step == 0 && strings.Contains(line, `"Emit":{"Values":[{"Seq":`+m[2]+`,"Value":`+m[3]+`,"Err":null}`) {
			step, _ = strconv.Atoi(m[1])
			v, _ := strconv.Atoi(m[3])
			line = strings.Replace(line, `"Value":`+m[3], `"Value":`+strconv.Itoa(v+1), 1)
		}
		out.WriteString(line + "\n")
	}
	require.NotZero(t, step, "a Done that emits at once")

	_, err := replay.Run(flakyChain(t), &out)
	require.ErrorIs(t, err, replay.ErrDiverged)
	var d *replay.DivergenceError
	require.ErrorAs(t, err, &d)
	assert.Equal(t, 1, d.Agent)
	assert.Equal(t, "parallel", d.Name)
	assert.Equal(t, step, d.Step)
	assert.Equal(t, "Done", d.Message)
	assert.Contains(t, d.What, "effect")
	assert.Contains(t, err.Error(), fmt.Sprintf("agent 1 (parallel), step %d (Done)", step))
}

// A recording replays only through the agents it was recorded of.
func TestRunRefusesARecordingOfOtherAgents(t *testing.T) {
	rec := record(t)
	other, err := rate.Stage(rate.Config[int]{Rate: 10, Burst: 1})
	require.NoError(t, err)
	_, err = replay.Run(other, bytes.NewReader(rec))
	require.ErrorIs(t, err, replay.ErrRecording)
	assert.Contains(t, err.Error(), "rate, parallel, buffer")

	_, err = replay.Run(agent.Stage[int, []int]{}, bytes.NewReader(rec))
	require.ErrorIs(t, err, replay.ErrRecording, "the zero Stage has no agents")

	_, err = replay.Run(flakyChain(t), strings.NewReader("not a recording\n"))
	require.ErrorIs(t, err, replay.ErrRecording)

	// A step missing.
	lines := strings.SplitAfter(string(rec), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, `{"agent":2,"name":"buffer","step":2,`) {
			lines = append(lines[:i], lines[i+1:]...)
			break
		}
	}
	_, err = replay.Run(flakyChain(t), strings.NewReader(strings.Join(lines, "")))
	require.ErrorIs(t, err, replay.ErrRecording)
	assert.Contains(t, err.Error(), "step 3 after step 1")
}

// relay passes its items on as demand allows; with bug, its evolve panics
// on an Input holding 13.
type relay struct {
	held          []int
	demand        int
	closed, ended bool
}

func relayStage(t *testing.T, bug bool, takes ...agent.Msg) agent.Stage[int, int] {
	t.Helper()
	evolve := func(s relay, m agent.Msg) (relay, []agent.Effect) {
		switch m := m.(type) {
		case agent.Input[int]:
			if bug && slices.Contains(m.Items, 13) {
				panic("unlucky")
			}
			s.held = append(slices.Clip(s.held), m.Items...)
		case agent.Pull:
			s.demand = min(s.demand+m.N, agent.Unbounded)
		case agent.Close:
			s.closed = true
		case agent.Query:
			return s, []agent.Effect{agent.Reply[int]{To: m.ID, Value: len(s.held)}}
		default:
			return s, []agent.Effect{agent.Unhandled{}}
		}
		var fx []agent.Effect
		if n := min(len(s.held), s.demand); n > 0 {
			fx = append(fx, agent.Emit[int]{Values: s.held[:n:n]}, agent.Demand{N: n})
			s.held, s.demand = s.held[n:], s.demand-n
		}
		if s.closed && len(s.held) == 0 && !s.ended {
			s.ended = true
			fx = append(fx, agent.Finish{})
		}
		return s, fx
	}
	st, err := spawn.Stage[int, int](spawn.Spec[relay, struct{}, struct{}, int]{Name: "relay", Evolve: evolve, Takes: takes})
	require.NoError(t, err)
	return st
}

// An evolve that panicked panics again at the same step on replay, which
// is no divergence; the same recording replayed through a fixed evolve
// diverges there, naming the step.
func TestRunReproducesAPanicInEvolve(t *testing.T) {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	var rec bytes.Buffer
	c, err := compose.Start(rt, relayStage(t, true), nil, compose.WithRecording(&rec))
	require.NoError(t, err)
	for i := range 20 {
		if c.Post(context.Background(), i) != nil {
			break // the agent broke
		}
	}
	c.Close()
	err = c.Wait(context.Background())
	require.ErrorContains(t, err, "unlucky")
	require.Contains(t, rec.String(), `"panic":true`)

	res, err := replay.Run(relayStage(t, true), bytes.NewReader(rec.Bytes()))
	require.NoError(t, err)
	assert.True(t, res.Agents[0].Ended)

	_, err = replay.Run(relayStage(t, false), bytes.NewReader(rec.Bytes()))
	var d *replay.DivergenceError
	require.ErrorAs(t, err, &d)
	assert.Equal(t, "Input", d.Message)
	assert.Equal(t, "the panic", d.What)
	assert.Equal(t, "a panic", d.Recorded)
	assert.Equal(t, "no panic", d.Replayed)
}

// A recorded Set of one of this module's agents replays as it is: each
// agent names the Set messages it takes. One of a type of your own
// replays once the agent's spawn.Spec names it in Takes.
func TestRunReadsSetMessages(t *testing.T) {
	work, err := parallel.Stage(parallel.Config{Limit: 4}, func(_ context.Context, v int) (int, error) { return v, nil })
	require.NoError(t, err)
	tune, err := adaptive.Stage(adaptive.Config{}, func(_ context.Context, v int) (int, error) { return v, nil })
	require.NoError(t, err)
	pace, err := rate.Stage(rate.Config[int]{Rate: 10, Burst: 1})
	require.NoError(t, err)
	for _, c := range []struct {
		stage        agent.Stage[int, int]
		name         string
		limit, value string
	}{
		{work, "parallel", "parallel.Limit", "2"},
		{tune, "adaptive", "adaptive.Limit", "2"},
		{pace, "rate", "rate.Limit", `{"Rate":5,"Burst":2,"Until":"0001-01-01T00:00:00Z"}`},
	} {
		rec := `{"recording":"evolve","version":1,"base":0,"zone":0,"agents":["` + c.name + `"]}
{"agent":0,"name":"` + c.name + `","step":1,"at":5,"msg":{"github.com/evolvekit/evolve/agent.Set[github.com/evolvekit/evolve/` + c.limit + `]":{"Value":` + c.value + `}},"fx":[]}
`
		// The Set is read back, and evolved: its effects are those of the
		// agent, which this recording, written by hand, may not hold.
		res, err := replay.Run(c.stage, strings.NewReader(rec))
		if err != nil {
			var d *replay.DivergenceError
			require.ErrorAs(t, err, &d, c.name)
			assert.Equal(t, 1, d.Step)
		}
		assert.Equal(t, 1, res.Messages, c.name)
	}
	_, err = replay.Run(work, strings.NewReader(`{"recording":"evolve","version":1,"base":0,"zone":0,"agents":["parallel"]}
{"agent":0,"name":"parallel","step":1,"at":5,"msg":{"github.com/evolvekit/evolve/agent.Set[github.com/evolvekit/evolve/parallel.Limit]":{"Value":2}},"fx":[]}
`))
	require.NoError(t, err)

	own := `{"recording":"evolve","version":1,"base":0,"zone":0,"agents":["relay"]}
{"agent":0,"name":"relay","step":1,"at":5,"msg":{"github.com/evolvekit/evolve/agent.Set[string]":{"Value":"x"}},"fx":[{"Unhandled":{}}]}
`
	_, err = replay.Run(relayStage(t, false), strings.NewReader(own))
	require.ErrorIs(t, err, replay.ErrRecording)
	assert.ErrorContains(t, err, "agent.Set[string], which this agent does not take")
	res, err := replay.Run(relayStage(t, false, agent.Set[string]{}), strings.NewReader(own))
	require.NoError(t, err)
	assert.Equal(t, 1, res.Messages)
}
