package parallel_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/internal/fuzzin"
	"github.com/evolvekit/evolve/parallel"
)

// FuzzEvolve drives Evolve with message sequences decoded from the fuzzer's
// bytes, through the harness and model of TestRandomSequencesKeepEveryPromise,
// so that every message is checked as there: the invariants after every
// step, and after Close and the drain that every accepted item came out
// exactly once, in order when ordered, and Finish came once, last.
//
// The first four bytes are the configuration (see fzNewSim); the rest are
// records of four bytes, a kind, two arguments and a step of the clock
// (see fzStep). Only messages the runtime could send are decoded: items
// only within the input slots the agent gave back, a Done only for a batch
// in flight, with its results or too few of them; nothing after Finish.
func FuzzEvolve(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0})
	// Ordered, limit 3, batches of up to 3, queue 4, a demand of 3: posts,
	// batches ending out of order, one item failing, more demand, Close.
	f.Add([]byte{2, 4, 4, 4,
		0, 2, 0, 0x21, 0, 1, 0, 0x21, 5, 1, 0, 0x22, 9, 3, 0, 0, 5, 0, 0xff, 0x23,
		0, 2, 0, 0x61, 5, 0, 0, 0x10, 11, 0, 0, 0, 5, 0, 0, 0x01, 15, 0, 0, 0})
	// Unordered, limit 2, cancelling on error, queue 3: a failure cancels
	// the rest; a batch returns too few results; limits good and bad;
	// noise.
	f.Add([]byte{1, 9, 3, 0,
		0, 2, 0, 0x41, 5, 0, 0, 0x41, 0, 2, 0, 0, 8, 4, 0, 0, 5, 0x90, 0, 0x21,
		5, 0, 0x01, 0x21, 8, 0, 1, 0, 12, 1, 0, 0, 12, 7, 0, 0, 0, 2, 0, 0, 15, 0, 0, 0})
	// Ordered, batches of up to 8, no demand at first: batches grow once
	// items prove quick.
	f.Add([]byte{0, 6, 8, 1,
		0, 2, 0, 0, 9, 3, 0, 0, 5, 0, 0, 0x02, 0, 2, 0, 0, 0, 2, 0, 0, 9, 3, 0, 0,
		5, 0, 0, 0x01, 5, 0, 0, 0x01, 0, 2, 0, 0, 0, 2, 0, 0, 5, 0, 0, 0x01, 15, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzin.New(data)
		m := fzNewSim(t, in)
		for n := 0; in.More() && n < fzMaxSteps && m.finishes == 0; n++ {
			fzStep(m, in)
		}
		m.drain()
		m.checkEnd()
	})
}

// fzMaxSteps bounds the messages decoded from one input, to keep each run
// of the fuzz function short.
const fzMaxSteps = 400

// fzNewSim builds the harness for the configuration the input starts
// with, as newSim does for a seed, and grants the first demand. The
// harness's own draws (the jitter of its clock, the demand granted while
// draining) come from a generator seeded by the input's first bytes, so
// that an input replays exactly.
//
//	c0: Limit 1 + c0%6
//	c1: bit 0 unordered, bits 1-2 MaxBatch (the default, 1, 3 or 8), bit 3
//	    cancel on error, bit 4 a Timeout of 1s
//	c2: Queue 1 + (c2-1)%8, the default if 0
//	c3: a first demand of c3 - 1 (0 is ignored), unbounded if 0
func fzNewSim(t *testing.T, in *fuzzin.Bytes) *sim {
	seed := in.Seed()
	c0, c1, c2, c3 := in.Byte(), in.Byte(), in.Byte(), in.Byte()
	cfg := parallel.Config{
		Limit: 1 + int(c0)%6, Unordered: c1&1 == 1, MaxBatch: []int{0, 1, 3, 8}[c1>>1&3],
		CancelOnError: c1&8 != 0, Timeout: time.Duration(c1>>4&1) * time.Second,
	}
	if c2 != 0 {
		cfg.Queue = 1 + int(c2-1)%8
	}
	s, err := parallel.NewState[int, int](cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := &sim{
		t: t, seed: seed, r: rand.New(rand.NewPCG(seed, 0xf022)), s: s, limit: cfg.Limit,
		cancels: cfg.CancelOnError, finished: map[uint64]result{},
	}
	m.queue, m.credits = s.Status().Queue, s.Status().Queue
	if c3 != 0 {
		m.deliver(agent.Pull{N: int(c3 - 1)}) // a finite start; 0 is ignored
	} else {
		m.deliver(agent.Pull{N: agent.Unbounded})
	}
	return m
}

// fzStep decodes one record and delivers the message it stands for:
//
//	kind%16 0-4: post 1 + a%3 items, within the slots the feeder holds
//	        5-7: finish the batch a picks: b's bits fail its items, and
//	             a's high bit has it return too few results
//	          8: set the limit to 1 + a%6, or (b odd) a bad limit
//	       9-10: grant 1 + a%4 demand
//	         11: a query
//	         12: noise: a message to ignore, or of a type it does not take
//	      13-14: nothing but the step of the clock
//	         15: close the input, once, if a%8 is 0 (else nothing but the
//	             step of the clock)
//
// The clock moves by the record's fourth byte (see fuzzin.Delay) first.
func fzStep(m *sim, in *fuzzin.Bytes) {
	kind, a, b, dt := in.Byte(), in.Byte(), in.Byte(), in.Byte()
	m.now = m.now.Add(fuzzin.Delay(dt))
	switch kind % 16 {
	case 0, 1, 2, 3, 4:
		fzPost(m, 1+int(a)%3)
	case 5, 6, 7:
		if len(m.running) > 0 {
			fzComplete(m, int(a), b)
		}
	case 8:
		if b&1 == 1 {
			m.ignored(agent.Set[parallel.Limit]{Value: parallel.Limit(-int(a % 2))})
			return
		}
		m.limit = 1 + int(a)%6
		m.deliver(agent.Set[parallel.Limit]{Value: parallel.Limit(m.limit)})
	case 9, 10:
		m.deliver(agent.Pull{N: 1 + int(a)%4})
	case 11:
		m.query()
	case 12:
		fzNoise(m, a)
	case 15:
		if !m.closed && a%8 == 0 {
			m.deliver(agent.Close{})
		}
	}
}

// fzPost posts n items, no more than the feeder holds slots for, and none
// after Finish, as post does.
func fzPost(m *sim, n int) {
	n = min(n, m.credits)
	if n == 0 || m.finishes > 0 {
		return
	}
	items := make([]int, n)
	for i := range items {
		items[i] = m.accepted + i
	}
	m.credits -= n
	m.accepted += n
	m.deliver(agent.Input[int]{Items: items})
}

// fzComplete finishes the batch in flight that pick chooses, as complete
// does: item j fails if bit j%8 of fails is set; with pick's high bit set
// the batch returns only its first (pick>>4)%Items results and an error
// for the rest.
func fzComplete(m *sim, pick int, fails byte) {
	i := pick % len(m.running)
	f := m.running[i]
	m.running = slices.Delete(m.running, i, i+1)
	rs := make([]result, f.Items)
	for j := range rs {
		seq := f.id + uint64(j)
		rs[j] = result{Seq: seq, Value: int(seq) * 10}
		if fails>>(j%8)&1 == 1 {
			rs[j].Err = fmt.Errorf("item %d failed", seq)
		}
	}
	var whole error
	sent := rs
	if pick&0x80 != 0 {
		whole = errors.New("the batch broke")
		sent = rs[:(pick>>4&7)%f.Items]
		for j := len(sent); j < f.Items; j++ {
			rs[j] = result{Seq: rs[j].Seq, Err: whole}
		}
	}
	for _, r := range rs {
		m.end(r)
	}
	m.deliver(agent.Done[[]result]{ID: f.id, Result: slices.Clone(sent), Err: whole})
}

// fzNoise sends what noise sends, the one pick chooses: a message of a type
// the agent does not take, which it must report unhandled, or one it must
// ignore (a Pull of nothing, a Done for a batch never started, a Done
// again for an item emitted).
func fzNoise(m *sim, pick byte) {
	wrong := []agent.Msg{
		agent.Tick{Tag: 3},
		agent.Set[int]{Value: 4},
		agent.Done[int]{ID: 0},
		agent.Done[[]parallel.Result[string]]{ID: 0},
		agent.Input[string]{Items: []string{"x"}},
	}
	ignored := []agent.Msg{
		agent.Pull{N: 0},
		agent.Pull{N: -1},
		agent.Done[[]result]{ID: uint64(m.accepted + int(pick)%3)}, // never started
	}
	if len(m.emitted) > 0 {
		ignored = append(ignored, agent.Done[[]result]{ID: m.emitted[int(pick)%len(m.emitted)]})
	}
	if k := int(pick) % (len(wrong) + len(ignored)); k < len(wrong) {
		m.unhandled(wrong[k])
	} else {
		m.ignored(ignored[k-len(wrong)])
	}
}

// FuzzEvolveRetry drives Evolve, with retries, with message sequences
// decoded from the fuzzer's bytes, the way the runtime would: items only
// within the input slots the agent gave back, a Done only for a batch in
// flight (its items failing or not, with errors worth a retry or not,
// asking for a wait or not, or too few results), the Tick of the retry
// timer at the instant it was armed for and stale ones, demand, limits,
// queries and Close once. A model of the agent predicts which failures
// are retried and which stand, and after every message it checks the
// effects and the Status against it: the items started and retried, each
// retry of an item waiting for one, no sooner than the wait it asked for
// and within its attempts; the results emitted, each once, within demand,
// in order when ordered, with the value or error of its last attempt; the
// input slots; the timer pending while items wait for a retry (or, their
// wait over, for a batch to end), never early, and not firing again and
// again at one instant; the cancellation; never Unhandled. After Close and the drain, every accepted
// item came out exactly once and Finish came once, last.
//
// The first three bytes are the configuration (see fzNewRetry); the rest
// are records of four bytes, a kind, two arguments and a step of the
// clock (see fzRetry.step).
func FuzzEvolveRetry(f *testing.F) {
	f.Add([]byte{0, 0, 0})
	// Limit 2, batches of 1, three attempts, a first wait of up to 1ms:
	// failures retried until they succeed or the attempts run out.
	f.Add([]byte{1, 0x14, 0x01,
		0, 2, 0, 0, 5, 0, 0xff, 0x21, 5, 0, 0xff, 0x21, 14, 0, 0, 0x62, 5, 0, 0xff, 0x21,
		5, 1, 0, 0x21, 14, 0, 0, 0x62, 5, 0, 0xff, 0x21, 5, 0, 0, 0x61, 15, 0, 0, 0x61})
	// Limit 1, batches of 4, unordered, two attempts: a wait asked for by
	// the work, a failure not worth retrying, a batch with too few results.
	f.Add([]byte{0x18, 0x0b, 0x09,
		0, 2, 0, 0, 0, 2, 0, 0, 5, 0xa3, 0x05, 0x21, 14, 0, 0, 0x64, 5, 0xc0, 0x01, 0x21,
		10, 1, 0, 0, 5, 0xe1, 0, 0x41, 9, 0, 0, 0, 5, 0, 0, 0x62, 5, 0, 0, 0x61, 15, 0, 0, 0x81})
	// Limit 4, cancelling on error, four attempts, a demand of 2: a
	// failure not worth retrying cancels the retry of another.
	f.Add([]byte{0x23, 0x1f, 0x35,
		0, 2, 0, 0, 5, 0, 0xff, 0x01, 5, 0xc0, 0x01, 0x01, 10, 3, 0, 0, 13, 0, 0, 0,
		0, 1, 0, 0, 10, 3, 0, 0, 5, 0, 0, 0x21, 15, 0, 0, 0x61})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzin.New(data)
		m := fzNewRetry(t, in)
		for n := 0; in.More() && n < fzMaxSteps && m.finishes == 0; n++ {
			m.step(in)
		}
		m.drain()
	})
}

// fzRetryTag is the tag of the retry timer: the one tag the agent arms.
const fzRetryTag = 1

// errFzPermanent is a failure that the agents configured with a Retry.If
// never retry.
var errFzPermanent = errors.New("permanent")

// Where an item is, in the model of FuzzEvolveRetry.
const (
	fzQueued = iota
	fzRunning
	fzRetrying
	fzHeld
	fzEmitted
)

// fzItem is what the model knows of one accepted item.
type fzItem struct {
	phase  int
	tries  int       // attempts started
	minDue time.Time // while it waits for a retry: the earliest and
	maxDue time.Time // latest instants it may be due
	result result    // once its result stands
	anyErr bool      // the error is the agent's own: any will do
	dead   bool      // a dead letter came for it
}

// fzBatch is a batch in flight, in the model.
type fzBatch struct {
	seqs    []uint64
	attempt int
}

// fzRetry is the harness and the model of FuzzEvolveRetry.
type fzRetry struct {
	t         *testing.T
	r         *rand.Rand
	s         parallel.State[int, int]
	now       time.Time
	delivered int
	last      agent.Msg

	limit, maxBatch, attempts int
	backoff, maxBackoff       time.Duration
	unordered, cancels        bool
	worth                     func(error) bool

	bound, credits int
	items          []*fzItem
	started        int // the next item to start or abandon
	running        map[uint64]*fzBatch
	demand         int // granted and not used
	emitted        int
	retried        int
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

// fzNewRetry builds the agent and the model for the configuration the
// input starts with, and grants the first demand. The harness's own draws
// (while draining) and the agent's retry seed come from the input's first
// bytes.
//
//	c0: Limit 1 + c0%4; bits 2-3 MaxBatch (1, 2, 4 or the default); bit 4
//	    unordered; bit 5 cancel on error; bit 6 a Retry.If that retries all
//	    but errFzPermanent
//	c1: Queue 1 + c1%8; Attempts 1 + (c1>>3)%4
//	c2: Backoff (the default, 1ms, 10ms or 1µs) and MaxBackoff (the
//	    default, 2ms, 50ms or 1s) in its two lowest bit pairs; c2>>4 a first
//	    demand of c2>>4 - 1, unbounded if 0
func fzNewRetry(t *testing.T, in *fuzzin.Bytes) *fzRetry {
	seed := in.Seed()
	c0, c1, c2 := in.Byte(), in.Byte(), in.Byte()
	retry := parallel.Retry{
		Attempts:   1 + int(c1>>3)%4,
		Backoff:    []time.Duration{0, time.Millisecond, 10 * time.Millisecond, time.Microsecond}[c2%4],
		MaxBackoff: []time.Duration{0, 2 * time.Millisecond, 50 * time.Millisecond, time.Second}[c2>>2%4],
		Seed:       seed,
	}
	worth := func(err error) bool { return !errors.Is(err, context.Canceled) }
	if c0&0x40 != 0 {
		retry.If = func(err error) bool { return !errors.Is(err, errFzPermanent) }
		worth = retry.If
	}
	cfg := parallel.Config{
		Limit: 1 + int(c0)%4, Queue: 1 + int(c1)%8, MaxBatch: []int{1, 2, 4, 0}[c0>>2%4],
		Unordered: c0&0x10 != 0, CancelOnError: c0&0x20 != 0, Retry: retry,
	}
	s, err := parallel.NewState[int, int](cfg)
	if err != nil {
		t.Fatalf("config %+v: %v", cfg, err)
	}
	m := &fzRetry{
		t: t, r: rand.New(rand.NewPCG(seed, 0xf022)), s: s, now: agenttest.T0,
		limit: cfg.Limit, maxBatch: s.Status().MaxBatch, attempts: retry.Attempts,
		backoff: retry.Backoff, maxBackoff: retry.MaxBackoff, unordered: cfg.Unordered, cancels: cfg.CancelOnError,
		worth: worth, bound: cfg.Queue, credits: cfg.Queue, running: map[uint64]*fzBatch{},
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

// step decodes one record: the clock moves on by its fourth byte (see
// fuzzin.Delay), the retry timer ticking on the way at the instant it was armed
// for, then comes what the kind says:
//
//	kind%16 0-4: 1 + a%3 items, within the slots the feeder holds, none
//	             after Close
//	        5-8: the end of the batch in flight a%16 picks, its items
//	             failing as the bits of b say, with errors a>>4 picks (see
//	             complete)
//	          9: a stale Tick of the retry timer
//	      10-11: a grant of 1 + a%4 demand
//	         12: the limit set to 1 + a%5
//	         13: a query
//	         14: nothing but the step of the clock
//	         15: Close, once, if a%8 is 0 (else nothing but the clock)
func (m *fzRetry) step(in *fuzzin.Bytes) {
	kind, a, b, dt := in.Byte(), in.Byte(), in.Byte(), in.Byte()
	m.advance(fuzzin.Delay(dt))
	switch kind % 16 {
	case 0, 1, 2, 3, 4:
		m.post(1 + int(a)%3)
	case 5, 6, 7, 8:
		m.complete(int(a), b)
	case 9:
		m.deliver(agent.Tick{Tag: fzRetryTag})
	case 10, 11:
		m.deliver(agent.Pull{N: 1 + int(a)%4})
	case 12:
		m.limit = 1 + int(a)%5
		m.deliver(agent.Set[parallel.Limit]{Value: parallel.Limit(m.limit)})
	case 13:
		want := m.s.Status()
		if fx := m.deliver(agent.Query{ID: uint64(a)}); !sameEffects(fx, []agent.Effect{agent.Reply[parallel.Status]{To: uint64(a), Value: want}}) {
			m.fail("query answered with %v", fx)
		}
	case 15:
		if !m.closed && a%8 == 0 {
			m.deliver(agent.Close{})
		}
	}
}

// advance moves the clock on by d, delivering the Tick of the retry timer
// at its instant if it falls due on the way, as the runtime would.
func (m *fzRetry) advance(d time.Duration) {
	until := m.now.Add(d)
	for m.timer.on && !m.timer.due.After(until) {
		m.now = maxTime(m.now, m.timer.due)
		m.timer.on = false
		if m.tickAt.Equal(m.now) {
			m.ticks++
		} else {
			m.tickAt, m.ticks = m.now, 1
		}
		if m.ticks > 100 {
			m.fail("the retry timer fired %d times at %v: %+v", m.ticks, m.now.Sub(agenttest.T0), m.s.Status())
		}
		m.deliver(agent.Tick{Tag: fzRetryTag})
	}
	m.now = until
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// post sends n items, no more than the feeder holds slots for, none after
// Close or Finish.
func (m *fzRetry) post(n int) {
	n = min(n, m.credits)
	if n == 0 || m.closed || m.finishes > 0 {
		return
	}
	items := make([]int, n)
	for i := range items {
		items[i] = len(m.items)
		m.items = append(m.items, &fzItem{})
	}
	m.credits -= n
	m.deliver(agent.Input[int]{Items: items})
}

// complete ends the batch in flight pick%16 chooses (in ID order). Item j
// fails if bit j%8 of fails is set, with the error pick>>4 chooses: 0-9 a
// plain one; 10-11 one asking for a wait of 1 + pick%16 ms; 12 a
// cancellation; 13 errFzPermanent; 14-15 the batch returns only its first
// fails%n results, and an error for the batch (14) or none (15).
func (m *fzRetry) complete(pick int, fails byte) {
	if len(m.running) == 0 {
		return
	}
	ids := make([]uint64, 0, len(m.running))
	for id := range m.running {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	id := ids[pick%16%len(ids)]
	b := m.running[id]
	rs := make([]result, len(b.seqs))
	for j, seq := range b.seqs {
		rs[j] = result{Seq: seq, Value: int(seq)*10 + b.attempt}
		if fails>>(j%8)&1 == 0 {
			continue
		}
		plain := fmt.Errorf("item %d attempt %d failed", seq, b.attempt)
		switch flavour := pick >> 4; {
		case flavour < 10:
			rs[j].Err = plain
		case flavour < 12:
			rs[j].Err = agent.RetryAfter(plain, time.Duration(1+pick%16)*time.Millisecond)
		case flavour == 12:
			rs[j].Err = fmt.Errorf("item %d: %w", seq, context.Canceled)
		case flavour == 13:
			rs[j].Err = fmt.Errorf("item %d: %w", seq, errFzPermanent)
		}
	}
	var whole error
	if flavour := pick >> 4; flavour >= 14 {
		rs = rs[:int(fails)%len(rs)]
		if flavour == 14 {
			whole = fmt.Errorf("batch %d attempt %d broke", id, b.attempt)
		}
	}
	m.deliver(agent.Done[[]result]{ID: id, Result: rs, Err: whole})
}

// deliver evolves the state with msg, stamped with the clock, twice from
// the same state to check that Evolve changed nothing it was given; then
// it makes the model do what msg asks, checks the effects against it,
// and the invariants.
func (m *fzRetry) deliver(msg agent.Msg) []agent.Effect {
	msg = agent.Stamp(msg, m.now)
	m.last = msg
	before, was := m.s, m.s.Status()
	next, fx := parallel.Evolve(before, msg)
	again, fx2 := parallel.Evolve(before, msg)
	if next.Status() != again.Status() || !fzSameEffects(fx, fx2) || before.Status() != was {
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
func (m *fzRetry) expect(msg agent.Msg) {
	switch msg := msg.(type) {
	case agent.Pull:
		if msg.N > 0 {
			m.demand = min(m.demand+msg.N, agent.Unbounded)
		}
	case agent.Close:
		m.closed = true
	case agent.Done[[]result]:
		m.ended(msg)
	}
}

// ended is the model's rule for the end of a batch: each item's result
// stands, or the item waits for a retry if it failed worth one, with
// attempts left and nothing cancelled.
func (m *fzRetry) ended(d agent.Done[[]result]) {
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
			it.phase, it.minDue, it.maxDue = fzRetrying, m.now.Add(wait), m.now.Add(max(wait, m.ceiling(b.attempt)))
			m.retried++
			continue
		}
		m.conclude(it, r, anyErr)
	}
}

// ceiling is the cap of the wait after the attempt-th attempt failed.
func (m *fzRetry) ceiling(attempt int) time.Duration {
	c := m.backoff
	for range attempt - 1 {
		c = min(2*c, m.maxBackoff)
	}
	return min(c, m.maxBackoff)
}

// conclude notes that r stands as its result.
func (m *fzRetry) conclude(it *fzItem, r result, anyErr bool) {
	it.phase, it.result, it.anyErr = fzHeld, r, anyErr
	m.concluded++
	if r.Err != nil || anyErr {
		m.failedN++
		if m.firstErr == nil && !m.anyFirst {
			m.firstErr, m.anyFirst = r.Err, anyErr
		}
	}
}

// effects checks the effects of one message against the model and
// updates it: first the Cancel, the Starts, the Demand and the timer, then
// the dead letters, what was emitted and the Finish, which may concern
// items failed for the cancellation.
func (m *fzRetry) effects(fx []agent.Effect) {
	m.starts, m.given = 0, 0
	started := false
	for _, e := range fx {
		switch e := e.(type) {
		case agent.Cancel:
			m.cancel(e)
		case agent.Start[[]int]:
			m.start(e)
			started = true
		case agent.Demand:
			m.slots(e)
		case agent.Timer:
			if e.Tag != fzRetryTag || e.Delay < 0 {
				m.fail("armed %+v", e)
			}
			m.timer.on, m.timer.due, m.timer.armed = true, m.now.Add(e.Delay), m.now
		case agent.Disarm:
			if e.Tag != fzRetryTag || !m.timer.on {
				m.fail("disarmed %+v, pending: %v", e, m.timer.on)
			}
			m.timer.on = false
		}
	}
	if m.given != m.starts {
		m.fail("gave %d slots back, %d items started", m.given, m.starts)
	}
	if started && len(m.running) > m.limit {
		m.fail("started work with %d batches in flight over a limit of %d", len(m.running), m.limit)
	}
	for _, e := range fx {
		switch e := e.(type) {
		case agent.DeadLetter:
			m.deadLetter(e)
		case agent.Emit[result]:
			m.emit(e.Values)
		case agent.Finish:
			m.finish(e)
		}
	}
}

// cancel checks the one cancellation: asked for by the first failure that
// stood, when cancelling on error. The items waiting for a retry fail
// with its cause.
func (m *fzRetry) cancel(e agent.Cancel) {
	if !m.cancels || m.cause != nil || e.Cause == nil || m.firstErr == nil && !m.anyFirst {
		m.fail("cancelled with %v: cancelling on error %v, cancelled before with %v, first failure %v", e.Cause, m.cancels, m.cause, m.firstErr)
	}
	if m.firstErr != nil && !errors.Is(e.Cause, m.firstErr) {
		m.fail("cancelled with %v, not wrapping the first failure %v", e.Cause, m.firstErr)
	}
	m.cause = e.Cause
	for seq, it := range m.items {
		if it.phase == fzRetrying {
			m.conclude(it, result{Seq: uint64(seq), Err: m.cause}, false)
		}
	}
}

// start checks a Start: the next items, or the retry of one item waiting
// for it, due by now, within its attempts; never after the cancellation.
func (m *fzRetry) start(e agent.Start[[]int]) {
	if m.cause != nil {
		m.fail("start %+v after the cancellation", e)
	}
	if _, ok := m.running[e.ID]; ok {
		m.fail("start %+v: a batch with that ID is in flight", e)
	}
	if e.ID == uint64(m.started) {
		if len(e.Work) < 1 || len(e.Work) > m.maxBatch {
			m.fail("start %+v: batches of %d at most", e, m.maxBatch)
		}
		b := &fzBatch{attempt: 1}
		for i, v := range e.Work {
			seq := m.started + i
			if seq >= len(m.items) || v != seq || m.items[seq].phase != fzQueued {
				m.fail("start %+v, want the items from %d", e, m.started)
			}
			m.items[seq].phase = fzRunning
			m.items[seq].tries = 1
			b.seqs = append(b.seqs, uint64(seq))
		}
		m.started += len(e.Work)
		m.starts += len(e.Work)
		m.running[e.ID] = b
		return
	}
	if e.ID >= uint64(len(m.items)) || len(e.Work) != 1 || e.Work[0] != int(e.ID) {
		m.fail("start %+v: neither the next items nor the retry of one", e)
	}
	it := m.items[e.ID]
	switch {
	case it.phase != fzRetrying:
		m.fail("retry %+v of an item in phase %d", e, it.phase)
	case m.now.Before(it.minDue):
		m.fail("retry %+v at %v, before its wait ended at %v", e, m.now.Sub(agenttest.T0), it.minDue.Sub(agenttest.T0))
	case it.tries >= m.attempts:
		m.fail("retry %+v after %d attempts of %d", e, it.tries, m.attempts)
	}
	it.tries++
	it.phase = fzRunning
	m.running[e.ID] = &fzBatch{seqs: []uint64{e.ID}, attempt: it.tries}
}

// slots checks that the slots given back are those of the items that
// left the queue: started, or failed unstarted once cancelled.
func (m *fzRetry) slots(e agent.Demand) {
	if m.cause != nil {
		for range e.N {
			if m.started >= len(m.items) || m.items[m.started].phase != fzQueued {
				m.fail("gave %d slots back after the cancellation with %d items queued", e.N, len(m.items)-m.started)
			}
			m.conclude(m.items[m.started], result{Seq: uint64(m.started), Err: m.cause}, false)
			m.started++
		}
	} else {
		m.given += e.N
	}
	m.credits += e.N
}

// emit checks the results emitted: each once, standing, within demand, in
// order when ordered, with its value and error.
func (m *fzRetry) emit(rs []result) {
	for _, r := range rs {
		if r.Seq >= uint64(len(m.items)) || m.items[r.Seq].phase != fzHeld {
			m.fail("emitted %+v, not standing", r)
		}
		it := m.items[r.Seq]
		want := it.result
		switch {
		case !m.unordered && r.Seq != uint64(m.emitted):
			m.fail("emitted Seq %d out of order, want %d", r.Seq, m.emitted)
		case m.demand <= 0:
			m.fail("emitted %+v with no demand", r)
		case r.Value != want.Value || (it.anyErr && r.Err == nil) || (!it.anyErr && r.Err != want.Err):
			m.fail("emitted %+v, want %+v (the agent's own error: %v)", r, want, it.anyErr)
		}
		it.phase = fzEmitted
		m.emitted++
		m.demand--
	}
}

// deadLetter checks a dead letter: one for each item whose failure stands,
// with the item, its error and the attempts it had.
func (m *fzRetry) deadLetter(d agent.DeadLetter) {
	if d.Seq >= uint64(len(m.items)) {
		m.fail("dead letter %+v of no item", d)
	}
	it := m.items[d.Seq]
	switch {
	case it.phase < fzHeld || it.result.Err == nil && !it.anyErr:
		m.fail("dead letter %+v of an item in phase %d, result %+v", d, it.phase, it.result)
	case it.dead:
		m.fail("dead letter %+v again", d)
	case d.Item != any(int(d.Seq)) || d.Attempts != it.tries:
		m.fail("dead letter %+v, want item %d after %d attempts", d, d.Seq, it.tries)
	case it.anyErr && d.Err == nil || !it.anyErr && d.Err != it.result.Err:
		m.fail("dead letter %+v, want the error %v", d, it.result.Err)
	}
	it.dead = true
}

// finish checks the Finish: once, after Close, with every item emitted,
// carrying the first failure, and a dead letter for each item whose
// failure stands.
func (m *fzRetry) finish(e agent.Finish) {
	m.finishes++
	switch {
	case m.finishes > 1:
		m.fail("finished twice")
	case !m.closed || m.emitted != len(m.items):
		m.fail("finished with %d of %d items emitted, closed %v", m.emitted, len(m.items), m.closed)
	case m.anyFirst && e.Err == nil || !m.anyFirst && e.Err != m.firstErr:
		m.fail("finished with %v, want the first failure %v", e.Err, m.firstErr)
	}
	for seq, it := range m.items {
		if it.dead != (it.result.Err != nil || it.anyErr) {
			m.fail("item %d ended with %+v, dead letter: %v", seq, it.result, it.dead)
		}
	}
}

// invariants checks the Status and the timer against the model.
func (m *fzRetry) invariants() {
	st := m.s.Status()
	count := [fzEmitted + 1]int{}
	var minDue, maxDue time.Time
	for _, it := range m.items {
		count[it.phase]++
		if it.phase == fzRetrying {
			if minDue.IsZero() || it.minDue.Before(minDue) {
				minDue = it.minDue
			}
			if maxDue.IsZero() || it.maxDue.Before(maxDue) {
				maxDue = it.maxDue
			}
		}
	}
	switch {
	case st.Queued != count[fzQueued] || st.Queued+m.credits != m.bound:
		m.fail("%d queued, %d slots held by the feeder, bound %d; the model has %d queued", st.Queued, m.credits, m.bound, count[fzQueued])
	case st.InFlight != count[fzRunning] || st.Batches != len(m.running):
		m.fail("%d items in %d batches in flight, want %d in %d", st.InFlight, st.Batches, count[fzRunning], len(m.running))
	case st.Retrying != count[fzRetrying] || st.Retried != m.retried:
		m.fail("%d items waiting for a retry, %d retried; want %d and %d", st.Retrying, st.Retried, count[fzRetrying], m.retried)
	case st.Held != count[fzHeld] || st.Emitted != m.emitted || st.Done != m.concluded || st.Failed != m.failedN:
		m.fail("status %+v; model: %d held, %d emitted, %d done, %d failed", st, count[fzHeld], m.emitted, m.concluded, m.failedN)
	case st.Demand != m.demand || st.Limit != m.limit:
		m.fail("demand %d, limit %d; want %d and %d", st.Demand, st.Limit, m.demand, m.limit)
	case st.InFlight+st.Held+st.Retrying > st.Demand:
		m.fail("%d in flight, %d held and %d waiting for a retry exceed the demand of %d", st.InFlight, st.Held, st.Retrying, st.Demand)
	case m.timer.on && st.Retrying == 0:
		m.fail("the retry timer is pending with no item waiting for a retry")
	case !m.timer.on && st.Retrying > 0 && st.Batches < st.Limit:
		m.fail("%d items wait for a retry with no timer pending and room for %d more batches", st.Retrying, st.Limit-st.Batches)
	case m.timer.on && m.timer.due.Before(minDue):
		m.fail("the retry timer is due at %v, before any retry may be", m.timer.due.Sub(agenttest.T0))
	case m.timer.on && m.timer.due.After(maxTime(m.timer.armed, maxDue)):
		m.fail("the retry timer is due at %v, after a retry is due by %v", m.timer.due.Sub(agenttest.T0), maxDue.Sub(agenttest.T0))
	}
}

// drain closes the input, then ends work (most of it well), grants demand
// and lets the retry timer tick until the agent finishes, and checks that
// every item came out.
func (m *fzRetry) drain() {
	if !m.closed && m.finishes == 0 {
		m.deliver(agent.Close{})
	}
	for range 20 * (len(m.items) + 10) {
		switch st := m.s.Status(); {
		case m.finishes > 0:
			if m.emitted != len(m.items) {
				m.fail("finished with %d of %d items emitted", m.emitted, len(m.items))
			}
			return
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
	m.fail("the agent never finished: %+v", m.s.Status())
}

// fzSameEffects is sameEffects, taking also two Finishes whose errors have
// the same message for the same: the error of an item its batch returned
// no result for is made anew each time.
func fzSameEffects(a, b []agent.Effect) bool {
	return slices.EqualFunc(a, b, func(x, y agent.Effect) bool {
		if fx, ok := x.(agent.Finish); ok {
			fy, ok := y.(agent.Finish)
			return ok && sameError(fx.Err, fy.Err)
		}
		return sameEffects([]agent.Effect{x}, []agent.Effect{y})
	})
}

func (m *fzRetry) fail(format string, args ...any) {
	m.t.Helper()
	m.t.Fatalf("message %d (%#v): %s", m.delivered, m.last, fmt.Sprintf(format, args...))
}
