package rate_test

import (
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/rate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The instants of the step tables, as in x/time/rate's tests.
const (
	d  = 100 * time.Millisecond
	t0 = 0 * d
	t1 = 1 * d
	t2 = 2 * d
	t3 = 3 * d
	t4 = 4 * d
	t5 = 5 * d
	t6 = 6 * d
	t7 = 7 * d
	t8 = 8 * d
	t9 = 9 * d
)

var unbounded = agent.Pull{N: agent.Unbounded}

// in is an Input of items of cost 1.
func in(vs ...int) agent.Input[rate.Item[int]] {
	items := make([]rate.Item[int], len(vs))
	for i, v := range vs {
		items[i] = rate.Item[int]{Value: v}
	}
	return agent.Input[rate.Item[int]]{Items: items}
}

// costly is an Input of one item of the given cost.
func costly(v int, cost float64) agent.Input[rate.Item[int]] {
	return agent.Input[rate.Item[int]]{Items: []rate.Item[int]{{Value: v, Cost: cost}}}
}

func set(r float64, burst int) agent.Set[rate.Limit] {
	return agent.Set[rate.Limit]{Value: rate.Limit{Rate: r, Burst: burst}}
}

func tick(tag uint64) agent.Tick { return agent.Tick{Tag: tag} }

func timer(tag uint64, delay time.Duration) []agent.Timer {
	return []agent.Timer{{Tag: tag, Delay: delay}}
}

func start(t *testing.T, r float64, burst int) rate.State[int] {
	t.Helper()
	s, err := rate.NewState(rate.Config[int]{Rate: r, Burst: burst})
	require.NoError(t, err)
	return s
}

// step is one row of a table: a message at an instant, the values it must
// emit and the timers it must ask for.
type step struct {
	at     time.Duration
	msg    agent.Msg
	out    []int
	timers []agent.Timer
}

// play runs the table from s and checks every row; each emitted value must
// give its input slot back.
func play(t *testing.T, s rate.State[int], table []step) []agenttest.Trace[rate.State[int]] {
	t.Helper()
	steps := make([]agenttest.Step, len(table))
	for i, st := range table {
		steps[i] = agenttest.Step{At: st.at, Msg: st.msg}
	}
	traces := agenttest.Run(rate.Evolve[int], s, steps...)
	for i, st := range table {
		fx := traces[i].Effects
		assert.Equal(t, st.out, agenttest.Emitted[int](fx), "row %d: emitted", i)
		assert.Equal(t, st.timers, agenttest.Of[agent.Timer](fx), "row %d: timers", i)
		assert.Equal(t, len(st.out), agenttest.Demanded(fx), "row %d: demand given back", i)
	}
	return traces
}

func TestBurstPassesAtOnceThenOneItemPerInterval(t *testing.T) {
	play(t, start(t, 10, 3), []step{
		{at: t0, msg: unbounded},
		{at: t0, msg: in(1, 2, 3, 4, 5), out: []int{1, 2, 3}, timers: timer(1, d)},
		{at: t1, msg: tick(1), out: []int{4}, timers: timer(2, d)},
		{at: t2, msg: tick(2), out: []int{5}},
		{at: t9, msg: in(6, 7, 8, 9), out: []int{6, 7, 8}, timers: timer(3, d)},
	})
}

func TestOneTimerWhileTheBucketIsEmpty(t *testing.T) {
	play(t, start(t, 10, 1), []step{
		{at: t0, msg: unbounded},
		{at: t0, msg: in(1, 2), out: []int{1}, timers: timer(1, d)},
		{at: t0 + d/4, msg: in(3)},
		{at: t0 + d/2, msg: agent.Pull{N: 5}},
		{at: t1, msg: tick(1), out: []int{2}, timers: timer(2, d)},
		{at: t1 + d/2, msg: in(4)},
		{at: t2, msg: tick(2), out: []int{3}, timers: timer(3, d)},
	})
}

func TestALateTickKeepsTheSchedule(t *testing.T) {
	play(t, start(t, 10, 1), []step{
		{at: t0, msg: unbounded},
		{at: t0, msg: in(1, 2, 3, 4, 5), out: []int{1}, timers: timer(1, d)},
		// Due at t1, it fires half an interval late: 2 passes as of t1, so
		// 3 is due at t2, not at t2 and a half.
		{at: t1 + d/2, msg: tick(1), out: []int{2}, timers: timer(2, d/2)},
		{at: t2, msg: tick(2), out: []int{3}, timers: timer(3, d)},
		// Two and a half intervals late, a stall: the bucket, which holds
		// one token at most, counts from the Tick: 4 passes, and 5 is due
		// an interval later, so that the stall is not made up at once.
		{at: t5 + d/2, msg: tick(3), out: []int{4}, timers: timer(4, d)},
		{at: t6 + d/2, msg: tick(4), out: []int{5}},
	})
}

// An agent of a Shared limit never passes an item as of an instant before
// its Tick: the shares add up to the limit only if each agent keeps within
// its own at every instant. Nor does it pass anything on a Tick that comes
// after its lease lapsed, however long before that the item was due, and
// it asks for no timer until a new Limit comes.
func TestASharedLimitsLateTickPassesNothingPastItsLease(t *testing.T) {
	s, err := rate.NewState(rate.Config[int]{Rate: 100, Burst: 10, Shared: sharedStub{}})
	require.NoError(t, err)
	play(t, s, []step{
		{at: t0, msg: unbounded},
		{at: t0, msg: grant(10, 1, 3*d)}, // an empty bucket
		{at: t0, msg: in(1, 2, 3), timers: timer(1, d)},
		// Half an interval late: 1 passes as of the Tick, so 2 is due an
		// interval after it.
		{at: t1 + d/2, msg: tick(1), out: []int{1}, timers: timer(2, d)},
		// The lease lapsed at t3: 2, due at t2 and a half, stays.
		{at: t3 + d/2, msg: tick(2)},
		{at: t5, msg: grant(10, 1, 10*d), timers: timer(3, d)},
		{at: t6, msg: tick(3), out: []int{2}, timers: timer(4, d)},
	})
}

func TestStaleTickIsIgnored(t *testing.T) {
	traces := play(t, start(t, 1, 1), []step{
		{at: t0, msg: unbounded},
		{at: t0, msg: in(1, 2, 3), out: []int{1}, timers: timer(1, time.Second)},
		// Half a token by t5 at 1/s; the other half takes 250ms at 2/s.
		{at: t5, msg: set(2, 1), timers: timer(2, 250*time.Millisecond)},
		{at: 750 * time.Millisecond, msg: tick(2), out: []int{2}, timers: timer(3, 500*time.Millisecond)},
		{at: time.Second, msg: tick(1)}, // armed before the change: stale
		{at: 1250 * time.Millisecond, msg: tick(3), out: []int{3}},
		{at: 1300 * time.Millisecond, msg: tick(3)}, // already seen: stale
	})
	assert.Equal(t, traces[3].State, traces[4].State, "a stale Tick changes nothing")
	assert.Equal(t, traces[5].State, traces[6].State, "a stale Tick changes nothing")
	assert.Empty(t, traces[4].Effects)
	assert.Empty(t, traces[6].Effects)
}

func TestFractionalRate(t *testing.T) {
	play(t, start(t, 0.5, 1), []step{
		{at: t0, msg: unbounded},
		{at: t0, msg: in(1, 2, 3), out: []int{1}, timers: timer(1, 2*time.Second)},
		{at: 2 * time.Second, msg: tick(1), out: []int{2}, timers: timer(2, 2*time.Second)},
		{at: 3 * time.Second, msg: in(4)},
		{at: 4 * time.Second, msg: tick(2), out: []int{3}, timers: timer(3, 2*time.Second)},
		{at: 6 * time.Second, msg: tick(3), out: []int{4}},
		{at: 8 * time.Second, msg: in(5), out: []int{5}},
	})
}

func TestCostlyHeadIsNotOvertaken(t *testing.T) {
	play(t, start(t, 1, 3), []step{
		{at: t0, msg: unbounded},
		{at: t0, msg: costly(1, 1), out: []int{1}},                 // 2 tokens left
		{at: t0, msg: costly(2, 3), timers: timer(1, time.Second)}, // needs 1 more
		{at: t1, msg: costly(3, 0.5)},                              // could pay, but waits its turn
		{at: time.Second, msg: tick(1), out: []int{2}, timers: timer(2, time.Second/2)},
		{at: 3 * time.Second / 2, msg: tick(2), out: []int{3}},
	})
}

func TestSetLimitRefillsAtTheOldRateThenAtTheNewOne(t *testing.T) {
	traces := play(t, start(t, 1, 1), []step{
		{at: t0, msg: unbounded},
		{at: t0, msg: in(1, 2, 3, 4), out: []int{1}, timers: timer(1, time.Second)},
		// Half a token by t5 at 1/s; the other half takes 50ms at 10/s.
		{at: t5, msg: set(10, 1), timers: timer(2, 50*time.Millisecond)},
		{at: t5 + 50*time.Millisecond, msg: tick(2), out: []int{2}, timers: timer(3, d)},
		// A larger burst adds no tokens, so the due instant stays and so
		// does the pending timer.
		{at: t6, msg: set(10, 4)},
		{at: t6 + 50*time.Millisecond, msg: tick(3), out: []int{3}, timers: timer(4, d)},
		// An invalid limit is ignored.
		{at: t7, msg: set(math.NaN(), 4)},
		{at: t7, msg: set(10, 0)},
		{at: time.Second, msg: tick(1)}, // armed before the change: stale
	})
	last := agenttest.Last(traces)
	assert.Equal(t, rate.Limit{Rate: 10, Burst: 4}, limitOf(last))
	assert.Equal(t, traces[5].State, last, "invalid limits and stale ticks change nothing")
}

func TestSetLimitCapsTokensAndCostsAtTheNewBurst(t *testing.T) {
	play(t, start(t, 1, 4), []step{
		{at: t0, msg: unbounded},
		{at: t0, msg: set(1, 2)},                                     // 4 tokens, 2 kept
		{at: t0, msg: costly(1, 4), out: []int{1}},                   // charged 2, the burst
		{at: t0, msg: costly(2, 4), timers: timer(1, 2*time.Second)}, // waits for a full bucket
		{at: 2 * time.Second, msg: tick(1), out: []int{2}},
	})
}

func TestAClockThatGoesBackRefillsNothing(t *testing.T) {
	play(t, start(t, 1, 1), []step{
		{at: t0, msg: unbounded},
		{at: t4, msg: in(1, 2), out: []int{1}, timers: timer(1, time.Second)},
		{at: t2, msg: in(3)}, // earlier than the last take: no refill, same timer
		{at: t4 + time.Second, msg: tick(1), out: []int{2}, timers: timer(2, time.Second)},
	})
}

func TestPullThrottlesEmission(t *testing.T) {
	traces := play(t, start(t, 10, 5), []step{
		{at: t0, msg: agent.Pull{N: 1}},
		{at: t0, msg: in(1, 2, 3), out: []int{1}}, // tokens, but no demand: no timer either
		{at: t1, msg: in(4)},
		{at: t2, msg: agent.Pull{N: 2}, out: []int{2, 3}},
		{at: t2, msg: agent.Pull{N: 0}},
		{at: t3, msg: agent.Pull{N: 10}, out: []int{4}},
	})
	st := agenttest.Last(traces).Status(agenttest.T0.Add(t3))
	assert.Equal(t, agent.Credit(9), st.Demand)
	assert.Equal(t, 4, st.Done)
}

func TestPullWhileWaitingForTokensArmsTheTimer(t *testing.T) {
	play(t, start(t, 10, 1), []step{
		{at: t0, msg: agent.Pull{N: 1}},
		{at: t0, msg: in(1, 2), out: []int{1}},
		{at: t0 + d/2, msg: agent.Pull{N: 1}, timers: timer(1, d/2)},
		{at: t1, msg: tick(1), out: []int{2}},
	})
}

func TestQueryRepliesAndChangesNothing(t *testing.T) {
	traces := agenttest.Run(rate.Evolve[int], start(t, 2, 4),
		agenttest.Step{At: t0, Msg: unbounded},
		agenttest.Step{At: t0, Msg: in(1, 2, 3, 4, 5, 6)},
		agenttest.Step{At: t2, Msg: agent.Query{ID: 7}},
	)
	before, after := traces[1], traces[2]
	assert.Equal(t, before.State, after.State)
	assert.Equal(t, []agent.Effect{agent.Reply[rate.Status]{To: 7, Value: rate.Status{
		Load: agent.Load{Queued: 2, Done: 4, Demand: agent.Unbounded - 4},
		Rate: 2, Burst: 4, Tokens: 0.4, Queue: agent.DefaultQueue,
	}}}, after.Effects)
}

func TestCloseFinishesOnceTheQueueIsEmpty(t *testing.T) {
	traces := play(t, start(t, 10, 1), []step{
		{at: t0, msg: unbounded},
		{at: t0, msg: in(1, 2), out: []int{1}, timers: timer(1, d)},
		{at: t0, msg: agent.Close{}},
		{at: t1, msg: tick(1), out: []int{2}},
		{at: t2, msg: in(3), out: []int{3}}, // input after Close is still taken
		{at: t3, msg: agent.Close{}},
	})
	finishes := make([]int, len(traces))
	for i, tr := range traces {
		finishes[i] = len(agenttest.Of[agent.Finish](tr.Effects))
	}
	assert.Equal(t, []int{0, 0, 0, 1, 0, 0}, finishes)
	assert.Equal(t, agent.Finish{}, traces[3].Effects[len(traces[3].Effects)-1], "Finish comes last")
}

func TestCloseWhenEmptyFinishesAtOnce(t *testing.T) {
	traces := agenttest.Run(rate.Evolve[int], start(t, 1, 1), agenttest.Step{At: t0, Msg: agent.Close{}})
	assert.Equal(t, []agent.Effect{agent.Finish{}}, traces[0].Effects)
}

func TestStaleTicksAndEmptyPullsChangeNothing(t *testing.T) {
	s := agenttest.Last(agenttest.Run(rate.Evolve[int], start(t, 1, 1),
		agenttest.Step{At: t0, Msg: unbounded},
		agenttest.Step{At: t0, Msg: in(1, 2)},
	))
	for _, m := range []agent.Msg{
		tick(0), tick(2), // not the pending timer
		agent.Pull{N: 0},
		agent.Pull{N: -1},
	} {
		tr := agenttest.Run(rate.Evolve[int], s, agenttest.Step{At: t9, Msg: m})
		assert.Equal(t, s, tr[0].State, "%#v", m)
		assert.Empty(t, tr[0].Effects, "%#v", m)
	}
}

func TestMessagesOfOtherTypesAreUnhandled(t *testing.T) {
	s := agenttest.Last(agenttest.Run(rate.Evolve[int], start(t, 1, 1),
		agenttest.Step{At: t0, Msg: unbounded},
		agenttest.Step{At: t0, Msg: in(1, 2)},
	))
	for _, m := range []agent.Msg{
		agent.Done[int]{ID: 1},                                                   // a rate agent starts no work
		agent.Done[struct{}]{ID: 1},                                              // nor any other kind
		agent.Input[string]{Items: []string{"x"}},                                // not an int
		agent.Input[rate.Item[string]]{Items: []rate.Item[string]{{Value: "x"}}}, // not an Item[int]
		agent.Set[float64]{Value: 9},                                             // not a Limit
		agent.Set[int]{Value: 9},
	} {
		next, fx := rate.Evolve(s, agent.Stamp(m, agenttest.T0.Add(t9)))
		assert.Equal(t, s, next, "%T", m)
		assert.Equal(t, []agent.Effect{agent.Unhandled{}}, fx, "%T", m)
		assert.Panics(t, func() { agenttest.Run(rate.Evolve[int], s, agenttest.Step{Msg: m}) },
			"a driver reports %T", m)
	}
}

func TestEvolveCopiesTheItemsItIsGiven(t *testing.T) {
	input := in(1, 2, 3)
	traces := agenttest.Run(rate.Evolve[int], start(t, 1, 2),
		agenttest.Step{At: t0, Msg: unbounded},
		agenttest.Step{At: t0, Msg: input},
	)
	out := agenttest.Emitted[int](traces[1].Effects)
	out[0] = 99
	assert.Equal(t, in(1, 2, 3), input, "the message's slice is untouched")
	st := traces[1].State.Status(agenttest.T0)
	assert.Equal(t, 1, st.Queued)
}

func TestItemCostDefaults(t *testing.T) {
	play(t, start(t, 1, 3), []step{
		{at: t0, msg: unbounded},
		{at: t0, msg: costly(1, 0), out: []int{1}},          // 0 counts as 1
		{at: t0, msg: costly(2, math.NaN()), out: []int{2}}, // so does NaN
		{at: t0, msg: costly(3, -5), out: []int{3}},         // and a negative cost
		{at: t0, msg: costly(4, 0.25), timers: timer(1, time.Second/4)},
	})
}

func TestNewStateRejectsABadConfig(t *testing.T) {
	for _, tc := range []struct {
		cfg  rate.Config[int]
		want string
	}{
		{rate.Config[int]{}, "rate: rate must be a positive number, got 0"},
		{rate.Config[int]{Rate: math.NaN(), Burst: 1}, "rate: rate must be a positive number, got NaN"},
		{rate.Config[int]{Rate: -2, Burst: 1}, "rate: rate must be a positive number, got -2"},
		{rate.Config[int]{Rate: math.Inf(1), Burst: 1}, "rate: rate must be finite, got +Inf"},
		{rate.Config[int]{Rate: 1}, "rate: burst must be at least 1, got 0"},
		{rate.Config[int]{Rate: 1, Burst: 1, Queue: -1}, "rate: queue must not be negative, got -1"},
	} {
		_, err := rate.NewState(tc.cfg)
		assert.EqualError(t, err, tc.want)
		assert.ErrorIs(t, err, rate.ErrConfig)
	}
	s, err := rate.NewState(rate.Config[int]{Rate: 0.5, Burst: 2})
	require.NoError(t, err)
	assert.Equal(t, rate.Status{Rate: 0.5, Burst: 2, Tokens: 2, Queue: agent.DefaultQueue}, s.Status(agenttest.T0))
}

// TestNoDriftOverThousandsOfItems lets thousands of queued items through,
// delivering each Tick exactly when it was asked for, and checks that each
// Tick lets exactly one item through, within a nanosecond of the exact
// instant: the first nanosecond at which rate*t covers the items after the
// burst, computed in exact arithmetic on the rate as written (the float64
// nearest to 0.3 is not 0.3). The error never grows with the number of
// items, and is rare.
func TestNoDriftOverThousandsOfItems(t *testing.T) {
	const n = 5000
	for _, written := range []string{"3", "0.5", "10", "0.3", "7", "1000/7", "12345.678", "1/3"} {
		exact, ok := new(big.Rat).SetString(written)
		require.True(t, ok)
		r, _ := exact.Float64()
		for _, burst := range []int{1, 4} {
			s := start(t, r, burst)
			at := agenttest.T0
			s, _ = rate.Evolve(s, agent.Stamp(unbounded, at))
			s, fx := rate.Evolve(s, agent.Stamp(in(seq(n)...), at))
			require.Len(t, agenttest.Emitted[int](fx), burst)
			off := 0
			for j := 1; j <= n-burst; j++ {
				timers := agenttest.Of[agent.Timer](fx)
				if len(timers) != 1 {
					t.Fatalf("rate %s burst %d item %d: timers %v", written, burst, j, timers)
				}
				at = at.Add(timers[0].Delay)
				s, fx = rate.Evolve(s, agent.Stamp(tick(timers[0].Tag), at))
				if out := agenttest.Emitted[int](fx); len(out) != 1 || out[0] != burst+j-1 {
					t.Fatalf("rate %s burst %d item %d: the Tick let %v through", written, burst, j, out)
				}
				diff := at.Sub(agenttest.T0) - exactDue(exact, j)
				if diff.Abs() > time.Nanosecond {
					t.Fatalf("rate %s burst %d item %d: out %v after the exact instant", written, burst, j, diff)
				}
				if diff != 0 {
					off++
				}
			}
			assert.Empty(t, agenttest.Of[agent.Timer](fx))
			assert.Less(t, off, n/100, "rate %v burst %d: items a nanosecond off", r, burst)
			t.Logf("rate %s burst %d: %d items, last at %v, %d a nanosecond off the exact instant", written, burst, n, at.Sub(agenttest.T0), off)
		}
	}
}

// exactDue returns the first nanosecond at which rate r has refilled j
// tokens: ceil(j / r) seconds, in exact arithmetic.
func exactDue(r *big.Rat, j int) time.Duration {
	q := new(big.Rat).SetInt64(int64(j) * int64(time.Second))
	q.Quo(q, r)
	ns := new(big.Int).Quo(q.Num(), q.Denom())
	if new(big.Rat).SetInt(ns).Cmp(q) < 0 {
		ns.Add(ns, big.NewInt(1))
	}
	return time.Duration(ns.Int64())
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func limitOf(s rate.State[int]) rate.Limit {
	st := s.Status(time.Time{})
	return rate.Limit{Rate: st.Rate, Burst: st.Burst}
}

func TestMovingOrDroppingTheTimerDisarmsIt(t *testing.T) {
	tr := agenttest.Run(rate.Evolve[int], start(t, 1, 1),
		agenttest.Step{At: t0, Msg: agent.Pull{N: 2}},
		agenttest.Step{At: t0, Msg: in(1, 2)},
		agenttest.Step{At: t1, Msg: set(10, 1)},
		agenttest.Step{At: t2, Msg: tick(2)},
		agenttest.Step{At: t2, Msg: in(3)},
	)
	assert.Equal(t, []agent.Timer{{Tag: 1, Delay: time.Second}}, agenttest.Of[agent.Timer](tr[1].Effects))
	// By t1 the bucket refilled 0.1 token at 1/s; the other 0.9 take 90ms at 10/s.
	assert.Equal(t, []agent.Effect{agent.Disarm{Tag: 1}, agent.Timer{Tag: 2, Delay: 90 * time.Millisecond}}, tr[2].Effects,
		"a faster rate moves the timer: the old one is disarmed")
	assert.Equal(t, []int{2}, agenttest.Emitted[int](tr[3].Effects))
	assert.Empty(t, agenttest.Of[agent.Timer](tr[3].Effects), "demand is spent: no timer")
	assert.Empty(t, agenttest.Of[agent.Disarm](tr[3].Effects), "the timer that ticked needs no disarming")
	assert.Empty(t, tr[4].Effects, "no demand: item 3 waits without a timer")
}

func TestEvolveLeavesTheStateItWasGivenAsItWas(t *testing.T) {
	s, err := rate.NewState(rate.Config[int]{Rate: 1, Burst: 1, Queue: 8})
	require.NoError(t, err)
	for i := range 3 {
		s, _ = rate.Evolve(s, agent.Input[rate.Item[int]]{Items: []rate.Item[int]{{Value: i + 1}}})
	}
	a, _ := rate.Evolve(s, agent.Input[rate.Item[int]]{Items: []rate.Item[int]{{Value: 4}}})
	b, _ := rate.Evolve(s, agent.Input[rate.Item[int]]{Items: []rate.Item[int]{{Value: 5}}}) // the same state, evolved again
	drain := func(s rate.State[int]) []int {
		var out []int
		for i := range 5 {
			var fx []agent.Effect
			s, fx = rate.Evolve(s, agent.Pull{At: time.Unix(0, 0).Add(time.Duration(i) * time.Second), N: 1})
			out = append(out, agenttest.Emitted[int](fx)...)
		}
		return out
	}
	assert.Equal(t, []int{1, 2, 3, 4}, drain(a))
	assert.Equal(t, []int{1, 2, 3, 5}, drain(b))
	assert.Equal(t, []int{1, 2, 3}, drain(s))
}

func TestPlainValuesCostOneAndPassAsTheyCame(t *testing.T) {
	values := []int{1, 2, 3}
	traces := agenttest.Run(rate.Evolve[int], start(t, 1, 2),
		agenttest.Step{At: t0, Msg: agent.Pull{N: 5}},
		agenttest.Step{At: t0, Msg: agent.Input[int]{Items: values}},
	)
	fx := traces[1].Effects
	emits := agenttest.Of[agent.Emit[int]](fx)
	require.Len(t, emits, 1)
	out := emits[0].Values
	assert.Equal(t, []int{1, 2}, out, "the burst lets two through")
	assert.Same(t, &values[0], &out[0], "the message's own slice, not a copy")
	assert.Equal(t, 2, cap(out), "which an append copies")
	assert.Contains(t, fx, agent.Effect(agent.Demand{N: 2}))
	assert.Equal(t, 1, traces[1].State.Status(agenttest.T0).Queued, "the third waits")
}

func TestPlainValuesDoWhatItemsOfCostOneDo(t *testing.T) {
	plain := func(vs ...int) agent.Input[int] { return agent.Input[int]{Items: vs} }
	for _, c := range []struct {
		name string
		r    float64
		b    int
		pull int
	}{{"tokens short", 1, 2, 100}, {"demand short", 100, 50, 2}, {"plenty", 1000, 100, 100}, {"no demand", 10, 5, 0}} {
		steps := func(input func(vs ...int) agent.Msg) []agenttest.Step {
			s := []agenttest.Step{
				{At: t0, Msg: input(1, 2, 3)},
				{At: t1, Msg: input(4)},
				{At: t3, Msg: agent.Pull{N: 3}},
				{At: t3, Msg: input(5, 6, 7, 8)},
				{At: t9, Msg: agent.Close{}},
			}
			if c.pull > 0 {
				s = append([]agenttest.Step{{At: t0, Msg: agent.Pull{N: c.pull}}}, s...)
			}
			return s
		}
		want := agenttest.Run(rate.Evolve[int], start(t, c.r, c.b), steps(func(vs ...int) agent.Msg { return in(vs...) })...)
		got := agenttest.Run(rate.Evolve[int], start(t, c.r, c.b), steps(func(vs ...int) agent.Msg { return plain(vs...) })...)
		for i := range want {
			assert.Equal(t, want[i].Effects, got[i].Effects, "%s: step %d", c.name, i)
			assert.Equal(t, want[i].State.Status(agenttest.T0.Add(t9)), got[i].State.Status(agenttest.T0.Add(t9)), "%s: step %d", c.name, i)
		}
	}
}
