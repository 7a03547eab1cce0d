package parallel_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/internal/pace"
	"github.com/evolvekit/evolve/parallel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// timerOf returns the one Timer among fx.
func timerOf(t *testing.T, fx []agent.Effect) agent.Timer {
	t.Helper()
	ts := agenttest.Of[agent.Timer](fx)
	require.Len(t, ts, 1, "effects %v", fx)
	return ts[0]
}

func TestAFailedItemIsRetriedAfterABackoffThenSucceeds(t *testing.T) {
	boom := errors.New("boom")
	s := newState(t, parallel.Config{Limit: 2, MaxBatch: 1, Retry: parallel.Retry{Attempts: 3, Backoff: 100 * time.Millisecond, Seed: 7}})
	tr := agenttest.Run(evolve, s, unbounded, input("a"), failed(0, boom))
	assert.Empty(t, emitted(tr[2].Effects), "a failure worth retrying is not passed on")
	first := timerOf(t, tr[2].Effects)
	assert.LessOrEqual(t, first.Delay, 100*time.Millisecond, "full jitter under the first cap")

	s = agenttest.Last(tr)
	tr = agenttest.Run(evolve, s, at(first.Delay, agent.Tick{Tag: first.Tag}), at(first.Delay, pace.In(pace.Pass{N: 1})),
		at(first.Delay, agent.Done[[]result]{ID: 0, Result: []result{{Seq: 0, Err: boom}}}))
	assert.Equal(t, []agent.Effect{pace.Out(pace.Reserve{N: 1})}, tr[0].Effects, "when due, the retry reserves a pass of the chain's pace")
	assert.Equal(t, []agent.Start[batch]{start(0, "a")}, starts(tr[1].Effects), "the retry starts with its pass, under the item's Seq")
	assert.Zero(t, agenttest.Demanded(tr[1].Effects), "its input slot was given back when it first started")
	second := timerOf(t, tr[2].Effects)
	assert.LessOrEqual(t, second.Delay, 200*time.Millisecond, "the cap doubles")

	s = agenttest.Last(tr)
	tr = agenttest.Run(evolve, s, at(first.Delay+second.Delay, agent.Tick{Tag: second.Tag}), at(time.Second, pace.In(pace.Pass{N: 1})),
		at(time.Second, done(0, 42).Msg), at(time.Second, step(agent.Close{}).Msg))
	assert.Empty(t, starts(tr[0].Effects), "no start without a pass")
	assert.Equal(t, []agent.Start[batch]{start(0, "a")}, starts(tr[1].Effects))
	assert.Equal(t, []result{{Seq: 0, Value: 42}}, emitted(tr[2].Effects))
	assert.Equal(t, []agent.Effect{agent.Finish{}}, tr[3].Effects, "no failure left: the retries hid it")
	st := agenttest.Last(tr).Status()
	assert.Equal(t, 2, st.Retried)
	assert.Zero(t, st.Failed)
}

func TestAnItemFailsAfterItsLastAttemptWithItsLastError(t *testing.T) {
	s := newState(t, parallel.Config{Limit: 1, MaxBatch: 1, Retry: parallel.Retry{Attempts: 2, Seed: 1}})
	tr := agenttest.Run(evolve, s, unbounded, input("a"), failed(0, errors.New("first")))
	tick := timerOf(t, tr[2].Effects)
	tr = agenttest.Run(evolve, agenttest.Last(tr), at(tick.Delay, agent.Tick{Tag: tick.Tag}), at(tick.Delay, pace.In(pace.Pass{N: 1})), at(tick.Delay, failed(0, errors.New("last")).Msg))
	got := emitted(tr[2].Effects)
	require.Len(t, got, 1)
	assert.EqualError(t, got[0].Err, "last")
	assert.Equal(t, 1, agenttest.Last(tr).Status().Failed)
}

func TestARetryKeepsInputOrder(t *testing.T) {
	s := newState(t, parallel.Config{Limit: 1, MaxBatch: 3, Retry: parallel.Retry{Attempts: 2}})
	batchDone := agent.Done[[]result]{ID: 0, Result: []result{{Seq: 0, Value: 1}}}
	tr := agenttest.Run(evolve, s, unbounded, input("a"), step(batchDone), input("b", "c", "d"))
	require.Equal(t, []agent.Start[batch]{start(1, "b", "c", "d")}, starts(tr[3].Effects))
	tr = agenttest.Run(evolve, agenttest.Last(tr),
		step(agent.Done[[]result]{ID: 1, Result: []result{{Seq: 1, Value: 2}, {Seq: 2, Err: errors.New("flaky")}, {Seq: 3, Value: 4}}}))
	assert.Equal(t, []result{{Seq: 1, Value: 2}}, emitted(tr[0].Effects), "d waits for c, which waits for its retry")
	tick := timerOf(t, tr[0].Effects)
	tr = agenttest.Run(evolve, agenttest.Last(tr), at(tick.Delay, agent.Tick{Tag: tick.Tag}), at(tick.Delay, pace.In(pace.Pass{N: 1})), at(tick.Delay, done(2, 3).Msg))
	assert.Equal(t, []agent.Start[batch]{start(2, "c")}, starts(tr[1].Effects))
	assert.Equal(t, []result{{Seq: 2, Value: 3}, {Seq: 3, Value: 4}}, emitted(tr[2].Effects))
}

func TestRetryAfterIsHonoured(t *testing.T) {
	s := newState(t, parallel.Config{Limit: 1, Retry: parallel.Retry{Attempts: 2, Backoff: time.Millisecond}})
	tr := agenttest.Run(evolve, s, unbounded, input("a"), failed(0, fmt.Errorf("429: %w", agent.RetryAfter(errors.New("slow down"), 5*time.Second))))
	assert.Equal(t, 5*time.Second, timerOf(t, tr[2].Effects).Delay, "at least what the server asked for")
}

func TestOnlyFailuresWorthRetryingAreRetried(t *testing.T) {
	permanent := errors.New("404")
	s := newState(t, parallel.Config{Limit: 2, MaxBatch: 1, Retry: parallel.Retry{Attempts: 5, If: func(err error) bool { return !errors.Is(err, permanent) }}})
	tr := agenttest.Run(evolve, s, unbounded, input("a", "b"), failed(0, permanent), failed(1, context.Canceled))
	assert.Equal(t, []result{{Seq: 0, Err: permanent}}, emitted(tr[2].Effects))
	assert.Empty(t, agenttest.Of[agent.Timer](tr[2].Effects))
	assert.Len(t, agenttest.Of[agent.Timer](tr[3].Effects), 1, "If decides: a cancellation is retried here")

	s = newState(t, parallel.Config{Limit: 1, Retry: parallel.Retry{Attempts: 5}})
	tr = agenttest.Run(evolve, s, unbounded, input("a"), failed(0, context.Canceled))
	assert.Equal(t, []result{{Seq: 0, Err: context.Canceled}}, emitted(tr[2].Effects), "by default a cancellation is not retried")
}

func TestCancelOnErrorFailsTheItemsWaitingForARetry(t *testing.T) {
	s := newState(t, parallel.Config{Limit: 2, MaxBatch: 1, CancelOnError: true, Retry: parallel.Retry{Attempts: 3, If: func(err error) bool { return err.Error() == "flaky" }}})
	tr := agenttest.Run(evolve, s, unbounded, input("a", "b"), failed(0, errors.New("flaky")), failed(1, errors.New("fatal")))
	assert.Len(t, agenttest.Of[agent.Cancel](tr[3].Effects), 1)
	got := emitted(tr[3].Effects)
	require.Len(t, got, 2, "a, waiting for its retry, fails with the cancellation; b with its own error")
	assert.ErrorContains(t, got[0].Err, "cancelled after item 1 failed")
	assert.EqualError(t, got[1].Err, "fatal")
	assert.Equal(t, []agent.Disarm{{Tag: 1}}, agenttest.Of[agent.Disarm](tr[3].Effects), "the retry timer goes")
}

func TestTheSameSeedDrawsTheSameBackoffs(t *testing.T) {
	delays := func(seed uint64) []time.Duration {
		s := newState(t, parallel.Config{Limit: 4, MaxBatch: 1, Retry: parallel.Retry{Attempts: 2, Backoff: time.Second, Seed: seed}})
		var out []time.Duration
		var fx []agent.Effect
		s, _ = evolve(s, agent.Pull{At: agenttest.T0, N: agent.Unbounded})
		s, _ = evolve(s, agent.Input[string]{At: agenttest.T0, Items: []string{"a", "b", "c", "d"}})
		for id := range uint64(4) {
			s, fx = evolve(s, agent.Done[[]result]{At: agenttest.T0, ID: id, Result: []result{{Seq: id, Err: errors.New("x")}}})
			for _, tm := range agenttest.Of[agent.Timer](fx) {
				out = append(out, tm.Delay)
			}
		}
		return out
	}
	assert.Equal(t, delays(3), delays(3))
	assert.NotEqual(t, delays(3), delays(4))
}

func TestCloseWaitsForTheRetries(t *testing.T) {
	s := newState(t, parallel.Config{Limit: 1, Retry: parallel.Retry{Attempts: 2}})
	tr := agenttest.Run(evolve, s, unbounded, input("a"), failed(0, errors.New("x")), step(agent.Close{}))
	assert.Empty(t, agenttest.Of[agent.Finish](tr[3].Effects), "a still has an attempt")
	assert.Equal(t, 1, tr[3].State.Status().Retrying)
}

// TestRandomRetriesEmitEachItemOnce drives Evolve with items whose work
// fails at random, retried at random, with the runtime's timers: every item
// comes out once, in order, failed only after its last attempt, and the
// agent finishes.
func TestRandomRetriesEmitEachItemOnce(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 1))
		attempts := 1 + r.IntN(4)
		s, err := parallel.NewState[int, int](parallel.Config{Limit: 1 + r.IntN(4), MaxBatch: 1 + r.IntN(4), Queue: 8, Unordered: r.IntN(2) == 0,
			Retry: parallel.Retry{Attempts: attempts, Backoff: time.Millisecond, Seed: seed}})
		require.NoError(t, err)
		now := agenttest.T0
		tried := map[uint64]int{}
		var running []agent.Start[[]int]
		var timer *agent.Timer
		var timerAt time.Time
		var out []parallel.Result[int]
		finishes, credits, posted, n := 0, 8, 0, 10+r.IntN(40)
		reserved, granted, retries := 0, 0, 0
		deliver := func(m agent.Msg) {
			var fx []agent.Effect
			s, fx = parallel.Evolve(s, agent.Stamp(m, now))
			for _, e := range fx {
				switch e := e.(type) {
				case agent.Start[[]int]:
					running = append(running, e)
					if tried[e.ID] > 0 && len(e.Work) == 1 {
						retries++
					}
				case agent.Send[pace.Reserve]:
					reserved += e.Value.N
				case agent.Emit[parallel.Result[int]]:
					out = append(out, e.Values...)
				case agent.Timer:
					timer, timerAt = &e, now.Add(e.Delay)
				case agent.Disarm:
					timer = nil
				case agent.Demand:
					credits += e.N
				case agent.Finish:
					finishes++
				case agent.Unhandled:
					t.Fatalf("seed %d: unhandled %T", seed, m)
				}
			}
		}
		deliver(agent.Pull{N: agent.Unbounded})
		for steps := 0; steps < 10000 && finishes == 0; steps++ {
			switch {
			case posted < n && credits > 0 && r.IntN(3) == 0:
				k := min(credits, n-posted, 1+r.IntN(4))
				items := make([]int, k)
				for i := range items {
					items[i] = posted + i
				}
				posted += k
				credits -= k
				deliver(agent.Input[int]{Items: items})
				if posted == n {
					deliver(agent.Close{})
				}
			case reserved > 0 && r.IntN(3) == 0:
				k := 1 + r.IntN(reserved)
				reserved -= k
				granted += k
				deliver(pace.In(pace.Pass{N: k}))
			case len(running) > 0:
				i := r.IntN(len(running))
				b := running[i]
				running = append(running[:i], running[i+1:]...)
				rs := make([]parallel.Result[int], len(b.Work))
				for j, v := range b.Work {
					seq := b.ID + uint64(j)
					tried[seq]++
					rs[j] = parallel.Result[int]{Seq: seq, Value: 2 * v}
					if r.IntN(2) == 0 {
						rs[j] = parallel.Result[int]{Seq: seq, Err: fmt.Errorf("item %d attempt %d", seq, tried[seq])}
					}
				}
				now = now.Add(time.Duration(r.IntN(3)) * time.Millisecond)
				deliver(agent.Done[[]parallel.Result[int]]{ID: b.ID, Result: rs})
			case reserved > 0:
				granted += reserved
				deliver(pace.In(pace.Pass{N: reserved}))
				reserved = 0
			case timer != nil:
				if timerAt.After(now) {
					now = timerAt
				}
				tag := timer.Tag
				timer = nil
				deliver(agent.Tick{Tag: tag})
			case posted < n:
				continue
			default:
				t.Fatalf("seed %d: stuck with nothing running, no timer and no Finish", seed)
			}
		}
		require.Equal(t, 1, finishes, "seed %d", seed)
		require.LessOrEqual(t, retries, granted, "seed %d: a retry started without a pass", seed)
		require.Len(t, out, n, "seed %d", seed)
		seen := map[uint64]bool{}
		for i, res := range out {
			require.False(t, seen[res.Seq], "seed %d: item %d emitted twice", seed, res.Seq)
			seen[res.Seq] = true
			if !s.Status().Unordered {
				require.Equal(t, uint64(i), res.Seq, "seed %d: out of order", seed)
			}
			require.LessOrEqual(t, tried[res.Seq], attempts, "seed %d: item %d tried too often", seed, res.Seq)
			if res.Err != nil {
				require.Equal(t, attempts, tried[res.Seq], "seed %d: item %d failed before its last attempt", seed, res.Seq)
				require.EqualError(t, res.Err, fmt.Sprintf("item %d attempt %d", res.Seq, attempts), "seed %d: the last error", seed)
			}
		}
	}
}

func TestADueRetryWaitsForAFreePlaceNotForATimer(t *testing.T) {
	s := newState(t, parallel.Config{Limit: 1, MaxBatch: 1, Retry: parallel.Retry{Attempts: 2, Backoff: time.Millisecond}})
	tr := agenttest.Run(evolve, s, unbounded, input("a", "b"), failed(0, errors.New("x")))
	tick := timerOf(t, tr[2].Effects)
	require.Equal(t, []agent.Start[batch]{start(1, "b")}, starts(tr[2].Effects), "b takes the only place")
	tr = agenttest.Run(evolve, agenttest.Last(tr), at(tick.Delay, agent.Tick{Tag: tick.Tag}), at(time.Second, done(1, 2).Msg),
		at(time.Second, agent.Input[string]{Items: []string{"c"}}), at(time.Second, pace.In(pace.Pass{N: 1})))
	assert.Empty(t, tr[0].Effects, "a is due, but the place is b's: no Start, no pass reserved yet, and no timer to spin on")
	assert.Equal(t, []agent.Send[pace.Reserve]{{Value: pace.Reserve{N: 1}}}, agenttest.Of[agent.Send[pace.Reserve]](tr[1].Effects), "b's Done frees the place: a reserves its pass")
	assert.Empty(t, starts(tr[2].Effects), "the place is kept for a: c waits")
	assert.Equal(t, []agent.Start[batch]{start(0, "a")}, starts(tr[3].Effects), "a starts with its pass")
}

func TestPassesBeyondThoseReservedAreIgnored(t *testing.T) {
	s := newState(t, parallel.Config{Limit: 2, MaxBatch: 1, Retry: parallel.Retry{Attempts: 3, Backoff: time.Second, Seed: 2}})
	tr := agenttest.Run(evolve, s, unbounded, step(pace.In(pace.Pass{N: 5})), input("a"), failed(0, errors.New("x")))
	tick := timerOf(t, tr[3].Effects)
	tr = agenttest.Run(evolve, agenttest.Last(tr), at(tick.Delay, agent.Tick{Tag: tick.Tag}), at(tick.Delay, pace.In(pace.Pass{N: 3})),
		at(tick.Delay, failed(0, errors.New("x")).Msg))
	assert.Equal(t, []agent.Effect{pace.Out(pace.Reserve{N: 1})}, tr[0].Effects, "the passes that came unasked are not kept")
	assert.Equal(t, []agent.Start[batch]{start(0, "a")}, starts(tr[1].Effects))
	tick = timerOf(t, tr[2].Effects)
	tr = agenttest.Run(evolve, agenttest.Last(tr), at(2*time.Hour, agent.Tick{Tag: tick.Tag}))
	assert.Equal(t, []agent.Effect{pace.Out(pace.Reserve{N: 1})}, tr[0].Effects, "nor are those beyond the reservation")
}
