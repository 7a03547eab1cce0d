package retryfuzz

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/internal/fuzzin"
	"github.com/evolvekit/evolve/internal/pace"
	"github.com/evolvekit/evolve/parallel"
)

// result is what the agents emit for one item.
type result = parallel.Result[int]

// Where an item is, in the model.
const (
	phaseQueued = iota
	phaseRunning
	phaseRetrying
	phaseHeld
	phaseEmitted
)

// item is what the model knows of one accepted item.
type item struct {
	phase  int
	tries  int       // attempts started
	minDue time.Time // while it waits for a retry: the earliest and
	maxDue time.Time // latest instants it may be due
	result result    // once its result stands
	anyErr bool      // the error is the agent's own: any will do
	dead   bool      // a dead letter came for it
}

// batch is a batch in flight, in the model.
type batch struct {
	seqs    []uint64
	attempt int
}

// model is the harness and the model of Run.
type model[S any, T any] struct {
	t         Failer
	a         Agent[S, T]
	r         *rand.Rand
	s         S
	now       time.Time
	delivered int
	last      agent.Msg

	limit, lo, hi       int // the limit if known (else 0), and its bounds
	maxBatch, attempts  int
	backoff, maxBackoff time.Duration
	unordered, cancels  bool
	worth               func(error) bool

	bound, credits int
	items          []*item
	started        int // the next item to start or abandon
	running        map[uint64]*batch
	demand         int // granted and not used
	emitted        int
	retried        int
	reserved       int // passes reserved and not yet brought
	passes         int // passes brought and not yet spent on a retry
	timer          struct {
		on         bool
		due, armed time.Time
	}
	ticks     int // Ticks delivered at the instant of the last one
	tickAt    time.Time
	cause     error
	firstErr  error
	anyFirst  bool // the first failure's error is the agent's own
	closed    bool
	finishes  int
	starts    int // fresh items started by the message being checked
	given     int // and the input slots it gave back for them
	concluded int // results that stand, emitted or not
	failedN   int
}

// newModel builds the agent and the model for the configuration the input
// starts with (see Config), and grants the first demand. The harness's
// own draws (while draining) and the agent's retry seed come from the
// input's first bytes.
func newModel[S any, T any](t Failer, a Agent[S, T], in *fuzzin.Bytes) *model[S, T] {
	seed := in.Seed()
	c0, c1, c2 := in.Byte(), in.Byte(), in.Byte()
	retry := parallel.Retry{
		Attempts:   1 + int(c1>>3)%4,
		Backoff:    []time.Duration{0, time.Millisecond, 10 * time.Millisecond, time.Microsecond}[c2%4],
		MaxBackoff: []time.Duration{0, 2 * time.Millisecond, 50 * time.Millisecond, time.Second}[c2>>2%4],
		Seed:       seed,
	}
	worth := func(err error) bool { return !errors.Is(err, context.Canceled) }
	if a.RetryIf(c0, c1) {
		retry.If = func(err error) bool { return !errors.Is(err, errPermanent) }
		worth = retry.If
	}
	cfg := Config{C0: c0, C1: c1, Seed: seed, Queue: 1 + int(c1)%8, Retry: retry}
	s, set, err := a.New(cfg)
	if err != nil {
		t.Fatalf("config %+v: %v", cfg, err)
	}
	m := &model[S, T]{
		t: t, a: a, r: rand.New(rand.NewPCG(seed, 0xf022)), s: s, now: agenttest.T0,
		limit: set.Limit, lo: set.Min, hi: set.Max, maxBatch: set.MaxBatch, attempts: retry.Attempts,
		backoff: retry.Backoff, maxBackoff: retry.MaxBackoff, unordered: set.Unordered, cancels: set.CancelOnError,
		worth: worth, bound: cfg.Queue, credits: cfg.Queue, running: map[uint64]*batch{},
	}
	if m.backoff == 0 {
		m.backoff = parallel.DefaultBackoff
	}
	if m.maxBackoff == 0 {
		m.maxBackoff = max(parallel.DefaultMaxBackoff, m.backoff)
	}
	if c2>>4 == 0 {
		m.deliver(agent.Pull{N: agent.Unbounded})
	} else {
		m.deliver(agent.Pull{N: int(c2>>4) - 1})
	}
	return m
}

// status returns the parallel.Status of the state.
func (m *model[S, T]) status() parallel.Status { return m.a.Base(m.a.Status(m.s)) }

// deliver evolves the state with msg, stamped with the clock, twice from
// the same state to check that Evolve changed nothing it was given (as
// the Status shows it); then it makes the model do what msg asks, checks
// the effects against it, and the invariants.
func (m *model[S, T]) deliver(msg agent.Msg) []agent.Effect {
	msg = agent.Stamp(msg, m.now)
	m.last = msg
	before, was := m.s, m.a.Status(m.s)
	next, fx := m.a.Evolve(before, msg)
	again, fx2 := m.a.Evolve(before, msg)
	if !reflect.DeepEqual(m.a.Status(next), m.a.Status(again)) || !m.a.Same(fx, fx2) || !reflect.DeepEqual(m.a.Status(before), was) {
		m.fail("evolving the same state twice gave different answers: %v, then %v", fx, fx2)
	}
	m.s = next
	m.delivered++
	if slices.Contains(fx, agent.Effect(agent.Unhandled{})) {
		m.fail("reported unhandled: %v", fx)
	}
	if _, ok := msg.(agent.Query); ok {
		return fx
	}
	m.expect(msg)
	m.effects(fx)
	m.invariants()
	return fx
}

// expect makes the model do what msg asks, before its effects.
func (m *model[S, T]) expect(msg agent.Msg) {
	switch msg := msg.(type) {
	case agent.Pull:
		if msg.N > 0 {
			m.demand = min(m.demand+msg.N, agent.Unbounded)
		}
	case agent.Close:
		m.closed = true
	case agent.Event[pace.Pass]:
		n := min(msg.Value.N, m.reserved)
		m.reserved -= n
		m.passes += n
	case agent.Done[[]result]:
		m.ended(msg)
	}
}

// ended is the model's rule for the end of a batch: each item's result
// stands, or the item waits for a retry if it failed worth one, with
// attempts left and nothing cancelled.
func (m *model[S, T]) ended(d agent.Done[[]result]) {
	b := m.running[d.ID]
	delete(m.running, d.ID)
	for j, seq := range b.seqs {
		it := m.items[seq]
		r, anyErr := result{Seq: seq}, false
		switch {
		case j < len(d.Result):
			r = d.Result[j]
		case d.Err != nil:
			r.Err = d.Err
		default:
			anyErr = true // the agent says the batch returned no result
		}
		fail := r.Err != nil || anyErr
		if fail && b.attempt < m.attempts && m.cause == nil && (anyErr || m.worth(r.Err)) {
			var after *agent.RetryAfterError
			wait := time.Duration(0)
			if errors.As(r.Err, &after) {
				wait = after.After
			}
			it.phase, it.minDue, it.maxDue = phaseRetrying, m.now.Add(wait), m.now.Add(max(wait, m.ceiling(b.attempt)))
			m.retried++
			continue
		}
		m.conclude(it, r, anyErr)
	}
}

// ceiling is the cap of the wait after the attempt-th attempt failed.
func (m *model[S, T]) ceiling(attempt int) time.Duration {
	c := m.backoff
	for range attempt - 1 {
		c = min(2*c, m.maxBackoff)
	}
	return min(c, m.maxBackoff)
}

// conclude notes that r stands as its result.
func (m *model[S, T]) conclude(it *item, r result, anyErr bool) {
	it.phase, it.result, it.anyErr = phaseHeld, r, anyErr
	m.concluded++
	if r.Err != nil || anyErr {
		m.failedN++
		if m.firstErr == nil && !m.anyFirst {
			m.firstErr, m.anyFirst = r.Err, anyErr
		}
	}
}

// drain closes the input, then ends work (most of it well), grants demand
// and lets the retry timer tick until the agent finishes, and checks that
// every item came out.
func (m *model[S, T]) drain() {
	if !m.closed && m.finishes == 0 {
		m.deliver(agent.Close{})
	}
	for range 20 * (len(m.items) + 10) {
		switch st := m.status(); {
		case m.finishes > 0:
			if m.emitted != len(m.items) {
				m.fail("finished with %d of %d items emitted", m.emitted, len(m.items))
			}
			return
		case m.reserved > 0:
			m.deliver(pace.In(pace.Pass{N: m.reserved}))
		case len(m.running) > 0:
			fails := byte(0)
			if m.r.IntN(3) == 0 {
				fails = byte(m.r.IntN(256))
			}
			m.complete(m.r.IntN(16)|m.r.IntN(16)<<4, fails)
		case m.timer.on:
			m.advance(max(m.timer.due.Sub(m.now), 0))
		case st.Held > 0 || st.Queued > 0:
			m.deliver(agent.Pull{N: 1 + m.r.IntN(3)})
		default:
			m.fail("stuck: %+v", st)
		}
	}
	m.fail("the agent never finished: %+v", m.a.Status(m.s))
}

func (m *model[S, T]) fail(format string, args ...any) {
	m.t.Helper()
	m.t.Fatalf("message %d (%#v): %s", m.delivered, m.last, fmt.Sprintf(format, args...))
}
