package adaptive_test

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/parallel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Shorthands for the step tables below: the agent takes strings and its
// work returns ints.
type (
	state  = adaptive.State[string, int]
	result = parallel.Result[int]
)

var (
	evolve    = adaptive.Evolve[string, int]
	unbounded = step(0, agent.Pull{N: agent.Unbounded})
)

func step(at time.Duration, m agent.Msg) agenttest.Step { return agenttest.Step{At: at, Msg: m} }

func input(at time.Duration, items ...string) agenttest.Step {
	return step(at, agent.Input[string]{Items: items})
}

// done finishes the work started under id with v.
func done(at time.Duration, id uint64, v int) agenttest.Step {
	return step(at, agent.Done[[]result]{ID: id, Result: []result{{Seq: id, Value: v}}})
}

// start is the Start of the work on item, at Seq id.
func start(id uint64, item string) agent.Start[[]string] {
	return agent.Start[[]string]{ID: id, Work: []string{item}}
}

func newState(t *testing.T, cfg adaptive.Config) state {
	t.Helper()
	s, err := adaptive.NewState[string, int](cfg)
	require.NoError(t, err)
	return s
}

// recorder is a controller that remembers the samples it saw and asks for
// the limits it is told to, in turn.
type recorder struct {
	seen *[]adaptive.Sample
	want []int
}

func (recorder) Name() string        { return "recorder" }
func (recorder) View() adaptive.View { return adaptive.View{Phase: "rec"} }
func (c recorder) Observe(s adaptive.Sample, _ *rand.Rand) (adaptive.Controller, int) {
	*c.seen = append(*c.seen, s)
	if len(c.want) == 0 {
		return c, s.Limit
	}
	n := c.want[0]
	c.want = c.want[1:]
	return c, n
}

func TestItStartsAtTheInitialLimitLikeAParallelAgent(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, adaptive.Config{Initial: 2, Max: 8, Queue: 4}),
		unbounded,
		input(0, "a", "b", "c", "d"),
	)
	assert.Empty(t, tr[0].Effects)
	assert.Equal(t, []agent.Effect{
		start(0, "a"),
		start(1, "b"),
		agent.Demand{N: 2},
	}, tr[1].Effects)
	st := agenttest.Last(tr).Status()
	assert.Equal(t, 2, st.Limit)
	assert.Equal(t, [2]int{1, 8}, [2]int{st.Min, st.Max})
	assert.Equal(t, "hill", st.Controller)
	assert.Equal(t, "start", st.View.Phase)
}

func TestTheControllerSeesServiceTimeWaitAndConcurrency(t *testing.T) {
	var seen []adaptive.Sample
	s := newState(t, adaptive.Config{Initial: 2, Max: 8, Controller: recorder{seen: &seen}})
	agenttest.Run(evolve, s,
		unbounded,
		input(0, "a", "b", "c"), // a and b start at 0; c waits
		done(30*time.Millisecond, 1, 11),
		done(50*time.Millisecond, 0, 10),
	)
	require.Len(t, seen, 2)
	first := seen[0]
	assert.Equal(t, 30*time.Millisecond, first.Service, "from its Start to its Done")
	assert.Zero(t, first.Wait)
	assert.Equal(t, 2, first.Started, "b started second")
	assert.Equal(t, 2, first.InFlight)
	assert.Equal(t, 1, first.Queued)
	assert.Equal(t, [3]int{2, 1, 8}, [3]int{first.Limit, first.Min, first.Max})
	assert.Equal(t, 30*time.Millisecond, first.Elapsed)
	assert.Equal(t, 30*time.Millisecond, first.Busy, "c waited while 2 of 2 ran")
	second := seen[1]
	assert.Equal(t, 50*time.Millisecond, second.Service)
	assert.Equal(t, 1, second.Started)
	assert.Equal(t, 20*time.Millisecond, second.Elapsed)
	assert.Zero(t, second.Busy, "nothing waited once c started")
}

func TestTheQueueWaitIsMeasuredFromAcceptToStart(t *testing.T) {
	var seen []adaptive.Sample
	s := newState(t, adaptive.Config{Initial: 1, Controller: recorder{seen: &seen}})
	agenttest.Run(evolve, s,
		unbounded,
		input(0, "a"),
		input(10*time.Millisecond, "b"),
		done(40*time.Millisecond, 0, 10), // b starts at 40ms, having waited 30ms
		done(100*time.Millisecond, 1, 11),
	)
	require.Len(t, seen, 2)
	assert.Equal(t, 30*time.Millisecond, seen[1].Wait)
	assert.Equal(t, 60*time.Millisecond, seen[1].Service)
}

func TestTheControllersLimitIsSetWithinTheBounds(t *testing.T) {
	var seen []adaptive.Sample
	s := newState(t, adaptive.Config{Min: 2, Max: 3, Controller: recorder{seen: &seen, want: []int{3, 9, 0}}})
	tr := agenttest.Run(evolve, s,
		unbounded,
		input(0, "a", "b", "c", "d", "e", "f"),
		done(time.Millisecond, 0, 10), // asks 3: d and e start
		done(2*time.Millisecond, 1, 11),
		done(3*time.Millisecond, 2, 12), // asks 0: 2
	)
	assert.Equal(t, []agent.Effect{
		start(2, "c"),
		agent.Demand{N: 1},
		agent.Emit[result]{Values: []result{{Seq: 0, Value: 10}}},
		start(3, "d"),
		agent.Demand{N: 1},
	}, tr[2].Effects, "the limit rises to 3 before the done work leaves, then one more starts in its place")
	assert.Equal(t, 3, tr[3].State.Status().Limit, "9 is brought down to Max")
	assert.Equal(t, 2, tr[4].State.Status().Limit, "0 is brought up to Min")
	assert.Equal(t, 3, seen[2].Started, "c started when the limit rose to 3, with a and b in flight")
}

func TestSetLimitByHandIsBroughtWithinTheBounds(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, adaptive.Config{Min: 2, Max: 4}),
		unbounded,
		input(0, "a", "b", "c", "d", "e"),
		step(time.Millisecond, agent.Set[adaptive.Limit]{Value: 9}),
		step(time.Millisecond, agent.Set[adaptive.Limit]{Value: 0}),
		step(time.Millisecond, agent.Set[adaptive.Limit]{Value: 1}),
	)
	assert.Equal(t, 2, agenttest.Demanded(tr[1].Effects))
	assert.Equal(t, 2, agenttest.Demanded(tr[2].Effects), "raised to 4, not 9")
	assert.Equal(t, 4, tr[2].State.Status().Limit)
	assert.Empty(t, tr[3].Effects)
	assert.Equal(t, tr[2].State, tr[3].State, "below 1 is ignored")
	assert.Equal(t, 2, tr[4].State.Status().Limit)
}

func TestOrderedResultsAndFinishAreParallels(t *testing.T) {
	tr := agenttest.Run(evolve, newState(t, adaptive.Config{Initial: 2, Controller: adaptive.Fixed{}}),
		unbounded,
		input(0, "a", "b"),
		done(time.Millisecond, 1, 11),
		step(time.Millisecond, agent.Close{}),
		done(2*time.Millisecond, 0, 10),
	)
	assert.Empty(t, agenttest.Emitted[result](tr[2].Effects))
	assert.Equal(t, []agent.Effect{
		agent.Emit[result]{Values: []result{{Seq: 0, Value: 10}, {Seq: 1, Value: 11}}},
		agent.Finish{},
	}, tr[4].Effects)
}

func TestQueryIsAnsweredAndChangesNothing(t *testing.T) {
	s := newState(t, adaptive.Config{Name: "x", Initial: 3, Max: 5, Unordered: true})
	tr := agenttest.Run(evolve, s, unbounded, input(0, "a"), step(time.Second, agent.Query{ID: 7}))
	want := adaptive.Status{
		Status: parallel.Status{
			Load:  agent.Load{InFlight: 1, Demand: agent.Unbounded},
			Limit: 3, Queue: agent.DefaultQueue, Unordered: true, MaxBatch: 1, Batches: 1, Batch: 1, Accepted: 1,
		},
		Min: 1, Max: 5, Controller: "hill", View: adaptive.View{Phase: "start"},
	}
	assert.Equal(t, []agent.Effect{agent.Reply[adaptive.Status]{To: 7, Value: want}}, tr[2].Effects)
	assert.Equal(t, tr[1].State, tr[2].State)
}

func TestMessagesThatChangeNothingAreIgnored(t *testing.T) {
	s := agenttest.Last(agenttest.Run(evolve, newState(t, adaptive.Config{}), unbounded, input(0, "a", "b")))
	for _, m := range []agent.Msg{
		agent.Pull{N: 0},
		agent.Done[[]result]{ID: 1}, // queued, not started
		agent.Done[[]result]{ID: 9}, // never accepted
		agent.Set[adaptive.Limit]{Value: 0},
	} {
		tr := agenttest.Run(evolve, s, step(time.Hour, m))
		assert.Empty(t, tr[0].Effects, "%T", m)
		assert.Equal(t, s, tr[0].State, "%T", m)
	}
}

func TestMessagesOfOtherTypesAreUnhandled(t *testing.T) {
	s := agenttest.Last(agenttest.Run(evolve, newState(t, adaptive.Config{}), unbounded, input(0, "a")))
	for _, m := range []agent.Msg{
		agent.Tick{Tag: 7}, // a timer it never arms
		agent.Set[int]{Value: 3},
		agent.Set[parallel.Limit]{Value: 3}, // parallel's, not this package's
		agent.Done[string]{ID: 0},
		agent.Done[[]parallel.Result[string]]{ID: 0},
		agent.Input[int]{Items: []int{1}},
	} {
		next, fx := evolve(s, agent.Stamp(m, agenttest.T0.Add(time.Hour)))
		assert.Equal(t, []agent.Effect{agent.Unhandled{}}, fx, "%T", m)
		assert.Equal(t, s, next, "%T", m)
	}
}

func TestNewStateRejectsABadConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  adaptive.Config
		want string
	}{
		{adaptive.Config{Min: -1}, "adaptive: min must be at least 1, got -1"},
		{adaptive.Config{Max: -1}, "adaptive: max must be between 1 and 2147483647, got -1"},
		{adaptive.Config{Min: 4, Max: 2}, "adaptive: max must be at least min (4), got 2"},
		{adaptive.Config{Min: 300}, "adaptive: max must be at least min (300), got 256"},
		{adaptive.Config{Min: 2, Max: 8, Initial: 9}, "adaptive: initial must be between min (2) and max (8), got 9"},
		{adaptive.Config{Min: 2, Max: 8, Initial: 1}, "adaptive: initial must be between min (2) and max (8), got 1"},
		{adaptive.Config{Queue: -1}, "adaptive: queue must not be negative, got -1"},
		{adaptive.Config{Timeout: -time.Second}, "adaptive: timeout must not be negative, got -1s"},
		{adaptive.Config{Controller: adaptive.Hill{Busy: 2}}, "adaptive: hill: busy must be between 0 and 1, got 2"},
		{adaptive.Config{Controller: adaptive.Hill{Memory: -1}},
			"adaptive: hill: min samples, memory and patience must not be negative, got 0, -1 and 0"},
		{adaptive.Config{Controller: picky{}}, "adaptive: picky: no setting suits it"},
	} {
		_, err := adaptive.NewState[string, int](c.cfg)
		assert.EqualError(t, err, c.want)
		assert.ErrorIs(t, err, adaptive.ErrConfig)
	}
	_, err := adaptive.NewState[string, int](adaptive.Config{Controller: picky{}})
	assert.ErrorIs(t, err, errPicky, "a controller's own error is kept")
	s, err := adaptive.NewState[string, int](adaptive.Config{})
	require.NoError(t, err)
	assert.Equal(t, 1, s.Status().Limit, "the zero Config starts at 1")
	assert.Equal(t, adaptive.DefaultMax, s.Status().Max)
}

// picky is a controller that no setting suits.
type picky struct{ adaptive.Fixed }

var errPicky = errors.New("picky: no setting suits it")

func (picky) Validate() error { return errPicky }

func TestTheControllerSeesWhichWorkFailed(t *testing.T) {
	var seen []adaptive.Sample
	agenttest.Run(evolve, newState(t, adaptive.Config{Initial: 3, Controller: recorder{seen: &seen}}),
		unbounded,
		input(0, "a", "b", "c"),
		done(time.Millisecond, 0, 10),
		step(2*time.Millisecond, agent.Done[[]result]{ID: 1, Result: []result{{Seq: 1, Err: errors.New("x")}}}),
		step(3*time.Millisecond, agent.Done[[]result]{ID: 2}), // no result: the item fails
	)
	var failed []bool
	for _, s := range seen {
		failed = append(failed, s.Failed)
	}
	assert.Equal(t, []bool{false, true, true}, failed)
}

func TestCancelOnErrorFailsTheItemsNotStartedUnsampled(t *testing.T) {
	var seen []adaptive.Sample
	boom := errors.New("boom")
	tr := agenttest.Run(evolve, newState(t, adaptive.Config{Initial: 2, Unordered: true, CancelOnError: true, Controller: recorder{seen: &seen}}),
		unbounded,
		input(0, "a", "b", "c", "d"),
		step(time.Millisecond, agent.Done[[]result]{ID: 0, Result: []result{{Seq: 0, Err: boom}}}),
		done(2*time.Millisecond, 1, 11),
		step(2*time.Millisecond, agent.Close{}),
	)
	cancels := agenttest.Of[agent.Cancel](tr[2].Effects)
	require.Len(t, cancels, 1)
	assert.ErrorIs(t, cancels[0].Cause, boom)
	assert.Empty(t, agenttest.Of[agent.Start[[]string]](tr[2].Effects), "c and d do not start")
	out := agenttest.Emitted[result](tr[2].Effects)
	require.Len(t, out, 3)
	assert.Equal(t, []uint64{0, 2, 3}, []uint64{out[0].Seq, out[1].Seq, out[2].Seq})
	assert.ErrorIs(t, out[2].Err, boom, "d fails with the cause")
	assert.Len(t, seen, 2, "only the work that ran makes samples")
	assert.Equal(t, []agent.Effect{agent.Finish{Err: boom}}, tr[4].Effects)
	assert.Empty(t, agenttest.Of[agent.Cancel](tr[3].Effects), "cancelled once")
}
