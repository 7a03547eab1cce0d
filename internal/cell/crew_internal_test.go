package cell

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/bridge"
	"github.com/evolvekit/evolve/internal/spec"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pool runs every item it takes as work, at most two at a time, and emits
// the results.
type pool struct {
	waiting []int
	running int
	nextID  uint64
	closed  bool
	done    bool
}

func poolEvolve(s pool, m agent.Msg) (pool, []agent.Effect) {
	var fx []agent.Effect
	switch m := m.(type) {
	case agent.Input[int]:
		s.waiting = append(s.waiting[:len(s.waiting):len(s.waiting)], m.Items...)
	case agent.Done[int]:
		s.running--
		fx = append(fx, agent.Emit[int]{Values: []int{m.Result}})
	case agent.Close:
		s.closed = true
	}
	for s.running < 2 && len(s.waiting) > 0 {
		fx = append(fx, agent.Start[int]{ID: s.nextID, Work: s.waiting[0]}, agent.Demand{N: 1})
		s.waiting, s.running, s.nextID = s.waiting[1:], s.running+1, s.nextID+1
	}
	if s.closed && !s.done && s.running == 0 && len(s.waiting) == 0 {
		s.done = true
		fx = append(fx, agent.Finish{})
	}
	return s, fx
}

func TestABusyAgentKeepsItsWorkers(t *testing.T) {
	rt := agent.NewRuntime()
	defer func() { require.NoError(t, rt.Shutdown(context.Background())) }()
	sum := 0
	h, err := SpawnForTest[int, struct{}](rt, spec.Spec[pool, int, int, int]{
		Name: "pool", Evolve: poolEvolve, Queue: 8,
		Work: func(_ context.Context, _ uint64, v int) (int, error) { return v * 2, nil },
	}, func(v int) { sum += v })
	require.NoError(t, err)
	ctx := context.Background()
	const n = 2000
	for i := range n {
		require.NoError(t, h.Post(ctx, i))
	}
	h.Close()
	require.NoError(t, h.Wait(ctx))
	assert.Equal(t, n*(n-1), sum)
	workers := WorkersForTest(h)
	// Two in flight at most: a new worker starts only while every other
	// is busy or has not yet come back to wait, so a handful serve all
	// 2000 items (usually two or three; the bound leaves room for workers
	// the scheduler holds up on the way back).
	assert.LessOrEqual(t, workers, 10, "workers started for %d items", n)
	assert.Positive(t, workers)
}

// emitResults starts each item as work and emits the values its result
// holds.
func emitResults(s pool, m agent.Msg) (pool, []agent.Effect) {
	if d, ok := m.(agent.Done[[]int]); ok {
		s, fx := poolEvolve(s, agent.Done[int]{ID: d.ID})
		fx[0] = agent.Emit[int]{Values: d.Result}
		return s, fx
	}
	return poolEvolve(s, m)
}

func TestRecycleTakesEachResultBackOnceDelivered(t *testing.T) {
	rt := agent.NewRuntime()
	defer func() { require.NoError(t, rt.Shutdown(context.Background())) }()
	seen := map[int]bool{}
	back := 0
	var reused atomic.Int64
	work := func(_ context.Context, _ uint64, v int, spare []int) ([]int, error) {
		if spare == nil {
			return []int{v, -v - 1}, nil
		}
		if len(spare) != 0 || cap(spare) < 2 {
			return nil, fmt.Errorf("spare of length %d and room %d: not one Recycle emptied", len(spare), cap(spare))
		}
		reused.Add(1)
		return append(spare, v, -v-1), nil
	}
	h, err := SpawnForTest[int, struct{}](rt, spec.Spec[pool, int, []int, int]{
		Name: "pool", Evolve: emitResults, Queue: 8,
		Work:  func(ctx context.Context, id uint64, v int) ([]int, error) { return work(ctx, id, v, nil) },
		Reuse: work,
		Recycle: func(r []int) []int {
			// On the agent's goroutine, after the round delivered r.
			assert.True(t, seen[r[0]] && seen[r[1]], "result %v taken back before it was delivered", r)
			back++
			r[0], r[1] = 0, 0 // what Work reuses it for changes nothing delivered
			return r[:0]
		},
	}, func(v int) {
		assert.False(t, seen[v], "value %d delivered twice", v)
		seen[v] = true
	})
	require.NoError(t, err)
	ctx := context.Background()
	const n = 500
	for i := range n {
		require.NoError(t, h.Post(ctx, i+1))
	}
	h.Close()
	require.NoError(t, h.Wait(ctx))
	assert.Len(t, seen, 2*n)
	assert.Equal(t, n, back, "every result is taken back once")
	assert.Positive(t, reused.Load(), "and handed to later work as its spare")
}

// startFirst starts work 100 as it starts, before any item comes, then
// runs items as poolEvolve does.
func startFirst(s pool, m agent.Msg) (pool, []agent.Effect) {
	if _, ok := m.(agent.Pull); ok && s.nextID == 0 {
		s.running, s.nextID = 1, 1
		return s, []agent.Effect{agent.Start[int]{ID: 0, Work: 100}}
	}
	return poolEvolve(s, m)
}

func TestInlineWorkRunsWithNoWorker(t *testing.T) {
	rt := agent.NewRuntime()
	defer func() { require.NoError(t, rt.Shutdown(context.Background())) }()
	var got []int
	h, err := SpawnForTest[int, struct{}](rt, spec.Spec[pool, int, int, int]{
		Name: "inline", Evolve: startFirst, Queue: 4, Inline: true,
		Work: func(_ context.Context, _ uint64, v int) (int, error) { return v * 2, nil },
	}, func(v int) { got = append(got, v) })
	require.NoError(t, err)
	ctx := context.Background()
	for i := range 50 {
		require.NoError(t, h.Post(ctx, i))
	}
	h.Close()
	require.NoError(t, h.Wait(ctx))
	want := []int{200}
	for i := range 50 {
		want = append(want, 2*i)
	}
	assert.Equal(t, want, got, "the work started as the actor starts is taken in too, and every item's in order")
	assert.Zero(t, WorkersForTest(h), "no worker started")
}

// nowClock is a Clock whose Now is fixed and that has no Since.
type nowClock struct{ now time.Time }

func (c nowClock) Now() time.Time { return c.now }

func (nowClock) AfterFunc(time.Duration, func()) func() bool { return func() bool { return false } }

func TestWorkIsTimedOnTheClockOfTheRuntime(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	assert.Equal(t, 5*time.Second, sinceOn(nowClock{now: t0.Add(5 * time.Second)})(t0),
		"a clock with no Since of its own: its Now less the instant")
	assert.Equal(t, 7*time.Second, sinceOn(sinceClock{nowClock{now: t0.Add(5 * time.Second)}})(t0),
		"a clock with a Since of its own: that, not a second reading of Now")
}

// sinceClock is a nowClock whose Since says 7s, whatever the instant.
type sinceClock struct{ nowClock }

func (sinceClock) Since(time.Time) time.Duration { return 7 * time.Second }

// TestARoundsDonesGoToStepDonesAtOnce hands a cell's stepDones the Dones
// of a round: two or more go to the spec's StepDones in one call; one goes
// to StepDone; a spec without StepDones gets a StepDone for each.
func TestARoundsDonesGoToStepDonesAtOnce(t *testing.T) {
	var calls []string
	spec := spec.Spec[int, int, int, int]{
		StepDone: func(s *int, d *agent.Done[int], fx []agent.Effect) []agent.Effect {
			calls = append(calls, fmt.Sprintf("one %d", d.ID))
			return fx
		},
		StepDones: func(s *int, ds []agent.Done[int], fx []agent.Effect) []agent.Effect {
			calls = append(calls, fmt.Sprintf("all %d", len(ds)))
			return fx
		},
	}
	dones := func(n int) []agent.Done[int] {
		ds := make([]agent.Done[int], n)
		for i := range ds {
			ds[i].ID = uint64(i + 1)
		}
		return ds
	}
	c := &cell[int, int, int, int, int, int]{spec: spec}
	c.stepDones(dones(3))
	c.stepDones(dones(1))
	c.stepDones(nil)
	assert.Equal(t, []string{"all 3", "one 1"}, calls, "a round of three at once, a round of one alone, none not at all")

	calls = nil
	c.spec.StepDones = nil
	c.stepDones(dones(3))
	assert.Equal(t, []string{"one 1", "one 2", "one 3"}, calls, "a spec with no StepDones: each alone, in turn")
}

// steppingClock is a Clock whose Now moves on by step at each reading.
type steppingClock struct {
	now  time.Time
	step time.Duration
}

func (c *steppingClock) Now() time.Time {
	c.now = c.now.Add(c.step)
	return c.now
}

func (*steppingClock) AfterFunc(time.Duration, func()) func() bool {
	return func() bool { return false }
}

// TestAGatherThatTookLongMakesTheNextOnesSkip gathers on a clock that says
// how long each gather took: a short one stamps the round with the instant
// it ended; one over gatherLong does too, and makes the next gatherSkips
// skip, each stamping the round with the instant its work ended; then the
// workers gather again.
func TestAGatherThatTookLongMakesTheNextOnesSkip(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := &steppingClock{now: t0, step: time.Microsecond}
	h := &Agent[int, int]{rt: &bridge.Parts{Clock: clock}}
	c := &cell[int, int, int, int, int, int]{}

	assert.Equal(t, t0.Add(time.Microsecond), c.gather(h, t0), "a short gather: stamped as it ended")
	assert.Zero(t, c.crew.skip.Load(), "nothing to skip after a short gather")

	clock.step = 2 * gatherLong
	end := clock.now
	assert.Equal(t, end.Add(clock.step), c.gather(h, end), "a long gather: stamped as it ended")
	assert.Equal(t, int32(gatherSkips), c.crew.skip.Load())
	for i := range gatherSkips {
		end := clock.now.Add(time.Duration(i))
		require.Equal(t, end, c.gather(h, end), "skipped gather %d: stamped as the work ended", i)
	}
	assert.Zero(t, c.crew.skip.Load(), "every skip taken")
	before := clock.now
	c.gather(h, before)
	assert.Equal(t, before.Add(clock.step), clock.now, "the next one gathers, and reads the clock")
}
