package book

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/remote/internal/census"
	"github.com/evolvekit/evolve/remote/internal/want"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadSim drives a book in virtual time under a load: the items of each
// tag ("tag:n") arrive at a rate, evenly spaced or at random (Poisson),
// the workers ask for their slots and again with each outcome, and each
// task's outcome comes back its tag's service time after its lease
// started (the workers have no prefetch, so a lease starts as its task is
// sent). It checks after every message that a line that holds items wants
// a worker at least.
type loadSim struct {
	t        *testing.T
	b        *Book[string, int, Result[int]]
	now      time.Time
	r        *rand.Rand // nil: evenly spaced arrivals
	rate     map[string]float64
	service  map[string]time.Duration
	next     map[string]time.Time
	due      map[string][]dueOutcome
	items    int
	timer    time.Time
	timerOn  bool
	wants    []Want
	workerID WorkerID
	// paced holds an arrival back while the line has items queued, as a
	// rate stage before the stage does: the stage takes items only as a
	// slot frees up. upstream counts those held back.
	paced    bool
	upstream int
}

// dueOutcome is the outcome of a task, due at an instant.
type dueOutcome struct {
	at     time.Time
	worker WorkerID
	task   Task[string]
}

func newLoadSim(t *testing.T, r *rand.Rand) *loadSim {
	b, err := newBook[string, int](options[string]{
		Queue: 1 << 20, MaxPrefetch: NoPrefetch, Drain: 30 * time.Second,
		Tag: func(v string) string { return v[:strings.IndexByte(v, ':')] },
	})
	require.NoError(t, err)
	b.silence = 0
	s := &loadSim{t: t, b: b, now: agenttest.T0, r: r, rate: map[string]float64{}, service: map[string]time.Duration{},
		next: map[string]time.Time{}, due: map[string][]dueOutcome{}}
	s.deliver(agent.Pull{N: agent.Unbounded})
	return s
}

// join registers n workers with slots each and tags, which ask for their
// slots.
func (s *loadSim) join(n, slots int, tags ...string) {
	for range n {
		s.workerID++
		s.deliver(agent.Event[Joined]{Value: Joined{Worker: s.workerID, Addr: "w", Slots: slots, Tags: tags}})
		s.deliver(agent.Event[Asked]{Value: Asked{Worker: s.workerID, N: slots}})
	}
}

// load sets the rate of tag's items, a second, and their service time.
func (s *loadSim) load(tag string, rate float64, service time.Duration) {
	s.rate[tag], s.service[tag] = rate, service
	if rate > 0 {
		s.next[tag] = s.now.Add(s.gap(tag))
	}
}

// gap returns the time to the next arrival of tag's items.
func (s *loadSim) gap(tag string) time.Duration {
	mean := float64(time.Second) / s.rate[tag]
	if s.r == nil {
		return time.Duration(mean)
	}
	return time.Duration(s.r.ExpFloat64() * mean)
}

// run delivers the arrivals, outcomes and want timer Ticks due until
// instant until, in the order they are due, and calls each, when not nil,
// after every message.
func (s *loadSim) run(until time.Time, each func()) {
	for {
		at, what, tag := until, "", ""
		for k, r := range s.rate {
			if r > 0 && s.next[k].Before(at) {
				at, what, tag = s.next[k], "arrive", k
			}
		}
		for k, q := range s.due {
			if len(q) > 0 && q[0].at.Before(at) {
				at, what, tag = q[0].at, "outcome", k
			}
		}
		if s.timerOn && s.timer.Before(at) {
			at, what = s.timer, "tick"
		}
		s.now = at
		switch what {
		case "":
			return
		case "arrive":
			s.next[tag] = s.now.Add(s.gap(tag))
			if s.paced && s.line(tag).Queued > 0 {
				s.upstream++
				break
			}
			s.deliver(agent.Input[string]{Items: []string{tag + ":" + strconv.Itoa(s.items)}})
			s.items++
		case "outcome":
			o := s.due[tag][0]
			s.due[tag] = s.due[tag][1:]
			s.deliver(agent.Event[Outcomes[int]]{Value: Outcomes[int]{Worker: o.worker, Asked: 1,
				Outcomes: []Outcome[int]{{Item: o.task.Item, Attempt: o.task.Attempt}}}})
		case "tick":
			s.timerOn = false
			s.deliver(agent.Tick{Tag: wantTimer})
		}
		if each != nil {
			each()
		}
	}
}

// deliver evolves the book with msg at the clock's instant, schedules the
// outcomes of the tasks it sends, notes its Wants and want timer, and
// checks that no line that holds items wants no worker.
func (s *loadSim) deliver(msg agent.Msg) {
	s.t.Helper()
	var fx []agent.Effect
	s.b, fx = evolve(s.b, agent.Stamp(msg, s.now))
	for _, e := range fx {
		switch e := e.(type) {
		case agent.Send[Dispatch[string]]:
			for _, task := range e.Value.Tasks {
				tag := s.b.tagOf(task.Value)
				s.due[tag] = append(s.due[tag], dueOutcome{at: s.now.Add(s.service[tag]), worker: e.Value.Worker, task: task})
			}
		case agent.Send[Want]:
			s.wants = append(s.wants, e.Value)
		case agent.Timer:
			if e.Tag == wantTimer {
				s.timer, s.timerOn = s.now.Add(e.Delay), true
			}
		}
	}
	for _, l := range s.b.Snapshot().Lines {
		if l.Queued+l.Leased > 0 && l.Want == 0 {
			s.t.Fatalf("at %v line %q holds %d queued and %d leased and wants no worker", s.now.Sub(agenttest.T0), l.Tag, l.Queued, l.Leased)
		}
	}
}

// line returns what the book measures of tag's line.
func (s *loadSim) line(tag string) census.Line {
	for _, l := range s.b.Snapshot().Lines {
		if l.Tag == tag {
			return l
		}
	}
	return census.Line{Tag: tag}
}

// at returns the instant d after the simulation's start.
func at(d time.Duration) time.Time { return agenttest.T0.Add(d) }

func TestASteadyLoadIsMeasured(t *testing.T) {
	s := newLoadSim(t, rand.New(rand.NewPCG(1, 2)))
	s.join(10, 4)
	s.load("", 200, 50*time.Millisecond)
	var lo, hi float64 = math.Inf(1), 0
	s.run(at(10*time.Second), nil)
	s.run(at(60*time.Second), func() {
		r := s.line("").Rate
		lo, hi = min(lo, r), max(hi, r)
	})
	l := s.line("")
	t.Logf("Poisson arrivals at 200/s, S 50 ms, 4 slots a worker: λ from %.1f to %.1f over 50 s; want %d", lo, hi, l.Want)
	assert.InDelta(t, 200, lo, 20, "λ within 10%% of the load's rate, at every message")
	assert.InDelta(t, 200, hi, 20, "λ within 10%% of the load's rate, at every message")
	assert.InDelta(t, 50*time.Millisecond, l.Service, float64(time.Microsecond))
	assert.Equal(t, 3, l.Want, "ceil(200 · 0.05 / 4) = ceil(2.5)")
	assert.Zero(t, l.Queued, "ten workers keep up")
}

func TestTheWantFollowsAStepOfLoadWithinSeconds(t *testing.T) {
	s := newLoadSim(t, nil)
	s.join(10, 4)
	s.load("", 100, 50*time.Millisecond)
	s.run(at(20*time.Second), nil)
	before := s.line("")
	require.Equal(t, 2, before.Want, "ceil(100 · 0.05 / 4) = ceil(1.25)")
	require.InDelta(t, 100, before.Rate, 1)

	s.load("", 400, 50*time.Millisecond)
	step := s.now
	var rise, settle time.Duration = -1, -1
	worst := 0.0 // the estimate's farthest from Little's law after it settled
	s.run(at(60*time.Second), func() {
		l := s.line("")
		since := s.now.Sub(step)
		if rise < 0 && l.Want >= 5 {
			rise = since
		}
		off := math.Abs(l.Rate*l.Service.Seconds()/4-5) / 5 // busy slots by Little's law, in workers, against 400 · 0.05 / 4
		switch {
		case off > 0.1:
			settle = -1
		case settle < 0:
			settle = since
		}
		if since > 10*time.Second {
			worst = max(worst, off)
			require.Equal(t, 5, l.Want, "at %v after the step", since)
		}
	})
	t.Logf("100 to 400 items/s, S 50 ms, 4 slots a worker: the want rose from 2 to 5 in %v; λ·S/c within 10%% of Little's law's 5 from %v on, then within %.2f%%",
		rise, settle, 100*worst)
	assert.Positive(t, rise)
	assert.LessOrEqual(t, rise, 5*time.Second, "the want rises within a few seconds")
	assert.Positive(t, settle)
	assert.LessOrEqual(t, settle, 10*time.Second, "and settles within 10%% of Little's law")
}

func TestTheDrainTermAddsWorkersForWhatIsQueued(t *testing.T) {
	s := newLoadSim(t, nil)
	s.join(1, 4)
	s.load("", 400, 50*time.Millisecond) // 20 slots busy, and one worker has 4
	s.run(at(10*time.Second), nil)
	l := s.line("")
	x := (l.Rate*l.Service.Seconds() + float64(l.Queued)*l.Service.Seconds()/30) / 4
	t.Logf("one worker of 4 slots under 400 items/s of 50 ms: queued %d, λ %.0f, S %v, want %d", l.Queued, l.Rate, l.Service, l.Want)
	assert.Greater(t, l.Queued, 3000)
	assert.Equal(t, int(math.Ceil(x-0.1)), l.Want, "ceil((λ·S + queued·S/T) / c - slack), slack 0.1")
	assert.Greater(t, l.Want, 5, "more than Little's law alone, for the queue")
}

// A stage whose slots are all but all busy cannot see its demand: behind
// a rate stage it takes items only as slots free up, and what waits
// waits before it. Its items come as fast as its two workers serve them,
// so Little's law alone would ask for the two it has; it asks for half as
// many again.
func TestASaturatedLineWantsHalfAsManyWorkersAgain(t *testing.T) {
	s := newLoadSim(t, nil)
	s.join(2, 4)
	s.load("", 150, 50*time.Millisecond) // 7.5 of its 8 slots busy
	s.run(at(20*time.Second), nil)
	l := s.line("")
	t.Logf("two workers of 4 slots under 150 items/s of 50 ms: λ·S %.2f, want %d", l.Rate*l.Service.Seconds(), l.Want)
	assert.Zero(t, l.Queued, "they keep up, just")
	assert.Equal(t, 3, l.Want, "2 + 2/2, where ceil(λ·S/c) is 2")

	s.load("", 100, 50*time.Millisecond) // 5 of 8 busy: no longer saturated
	s.run(at(40*time.Second), nil)
	assert.Equal(t, 2, s.line("").Want, "ceil(100 · 0.05 / 4) once slots are idle")
}

// Behind a rate stage, the stage takes items only as its slots free up,
// and workers that follow its want join it: each rise brings a worker
// whose slots, idle at first, end the saturation for a moment. The want
// holds for 5 s after it rose, so it climbs by half again each time to
// what the load needs or a little past it, then settles once, where it
// would otherwise flap at each join.
func TestAPacedStageClimbsToItsLoadWithoutFlapping(t *testing.T) {
	s := newLoadSim(t, nil)
	s.paced = true
	s.join(1, 4)
	s.load("", 400, 50*time.Millisecond) // 20 slots' worth: 5 workers
	workers, falls, seen := 1, 0, 0
	var rose time.Time
	s.run(at(60*time.Second), func() {
		for ; seen < len(s.wants); seen++ {
			w := s.wants[seen]
			switch {
			case w.Workers > workers:
				s.join(w.Workers-workers, 4)
				workers, rose = w.Workers, s.now
			case w.Workers < workers:
				falls++
				require.GreaterOrEqual(t, s.now.Sub(rose), want.Window, "a want fell within 5 s of its rise")
			}
		}
	})
	l := s.line("")
	t.Logf("paced, 400 items/s of 50 ms, workers of 4 slots joining as wanted: %d wants, %d of them falls; %d workers, want %d; %d items held upstream in all",
		len(s.wants), falls, workers, l.Want, s.upstream)
	assert.GreaterOrEqual(t, workers, 5, "enough workers joined for the load")
	assert.Contains(t, []int{5, 6}, l.Want, "the want settles at ceil(λ·S/c + 0.1) or below")
	assert.LessOrEqual(t, falls, 1, "it settles once")
	assert.LessOrEqual(t, len(s.wants), 6, "no flapping")
}

func TestEachTagWantsItsOwnWorkersAndNoneOnceIdle(t *testing.T) {
	s := newLoadSim(t, nil)
	s.join(4, 8)
	s.join(6, 2, "gpu")
	s.load("", 200, 20*time.Millisecond)    // 4 slots busy: 10 workers of 4.4 slots on average take them
	s.load("gpu", 50, 200*time.Millisecond) // 10 slots busy: 6 workers of 2 take them
	s.run(at(20*time.Second), nil)
	assert.Equal(t, 1, s.line("").Want)
	assert.Equal(t, 5, s.line("gpu").Want)
	assert.InDelta(t, 0.2, s.line("gpu").Service.Seconds(), 1e-6)

	s.load("", 0, 0)
	s.run(at(30*time.Second), nil)
	assert.Zero(t, s.line("").Want, "idle and empty")
	assert.Equal(t, 5, s.line("gpu").Want, "the other tag wants the same")

	s.load("gpu", 0, 0)
	s.run(at(45*time.Second), nil)
	assert.Zero(t, s.line("gpu").Want)
	assert.Zero(t, s.line("gpu").Rate)
	assert.False(t, s.timerOn, "no want timer once every line is idle")

	// The Wants came on changes only, and ended at 0.
	last := map[string]int{}
	for _, w := range s.wants {
		prev, seen := last[w.Tag]
		assert.False(t, seen && prev == w.Workers, "a Want that changes nothing: %+v", w)
		last[w.Tag] = w.Workers
	}
	assert.Equal(t, map[string]int{"": 0, "gpu": 0}, last)
}

func TestAQueueWithNoWorkerWantsOneAndClosedEmptyNone(t *testing.T) {
	s := newLoadSim(t, nil)
	s.deliver(agent.Input[string]{Items: []string{":a", ":b"}})
	assert.Equal(t, census.Line{Tag: "", Want: 1, Queued: 2, Rate: 2 / (want.Window / 2).Seconds()}, s.line(""), "S unknown: the floor")
	s.load("", 0, time.Second)
	s.join(1, 4)
	s.run(at(2*time.Second), nil)
	s.deliver(agent.Close{})
	l := s.line("")
	assert.Zero(t, l.Want, "closed and empty")
	assert.Equal(t, time.Second, l.Service)
	assert.Equal(t, []Want{{Tag: "", Workers: 1}, {Tag: "", Workers: 0}}, s.wants)
}

func TestABookWithoutDrainWantsNothing(t *testing.T) {
	tr := play(t, options[string]{}, pullAll, items("a"), join(1, 2), ask(1, 2), after(time.Second, ok(1, 0, 1, 7)))
	for _, st := range tr {
		for _, e := range st.Effects {
			_, want := e.(agent.Send[Want])
			assert.False(t, want)
		}
	}
	assert.Nil(t, tr[len(tr)-1].State.Snapshot().Lines)
}
