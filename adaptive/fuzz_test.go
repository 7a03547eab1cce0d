package adaptive_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/fuzzin"
	"github.com/evolvekit/evolve/internal/testing/retryfuzz"
	"github.com/evolvekit/evolve/parallel"
)

// FuzzEvolve drives Evolve with message sequences decoded from the fuzzer's
// bytes, through the harness and model of TestRandomSequencesKeepEveryPromise,
// so that every message is checked as there: evolved twice from the same
// state with the same answer and the state given untouched, no work
// started beyond the limit, the limit within [Min, Max], no more emitted
// than demanded, each item emitted once, nothing started after the one
// cancellation, never Unhandled; after Close and the drain, every accepted
// item out exactly once and Finish once.
//
// The first five bytes are the configuration (bounds, initial limit,
// controller, order, cancel on error, queue bound, first demand); the rest
// are records of four bytes, a kind, two arguments and a step of the clock
// (see fzStep). Only messages the runtime could send are decoded: items
// only within the input slots the agent gave back, a Done only for work in
// flight.
func FuzzEvolve(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0})
	// Hill between 1 and 6, queue 8: rounds of posts and work ending after
	// a few milliseconds, each a sample for it.
	round := []byte{0, 2, 0, 0x21, 5, 0, 1, 0x44, 5, 1, 1, 0x45, 5, 2, 1, 0x43}
	f.Add(slices.Concat([]byte{0, 5, 0, 1, 8}, bytes.Repeat(round, 6), []byte{15, 0, 0, 0}))
	// A controller asking for random limits, unordered, cancelling on
	// error, between 2 and 6, queue 4, a demand of 2: a failure, limits by
	// hand, messages to ignore.
	f.Add([]byte{1, 4, 3, 12, 0x24,
		0, 2, 0, 0x21, 5, 0, 1, 0x43, 0, 2, 0, 0, 9, 1, 0, 0x21, 8, 9, 0, 0, 5, 1, 1, 0x42,
		5, 0, 0, 0x41, 0, 2, 0, 0, 12, 0, 0, 0, 12, 3, 0, 0, 8, 1, 0, 0, 5, 0, 1, 0x41, 15, 0, 0, 0})
	// Fixed at 3, the default queue, a demand of 1: results held for
	// demand.
	f.Add([]byte{2, 0, 0, 2, 0x10,
		0, 2, 0, 0, 1, 2, 0, 0, 5, 2, 1, 0x41, 5, 0, 1, 0x41, 11, 0, 0, 0, 9, 1, 0, 0x21,
		5, 0, 1, 0x41, 10, 2, 0, 0, 5, 0, 1, 0x41, 5, 0, 1, 0x41, 15, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzin.New(data)
		m := fzNewModel(t, in)
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

// fzNewModel builds the harness for the configuration the input starts
// with, as newModel does for a seed; the agent's own random source is
// seeded by the input's first bytes, and so are the harness's draws (the
// demand granted while draining).
//
//	Min 1 + b0%3, Max Min + b1%6, Initial within them as b2%8 says;
//	b3%4 picks the controller (chaos, Hill, Fixed, a zero Hill), b3&4 the
//	order, b3&8 cancel on error; b4%16 is the queue bound (0: the
//	default), b4>>4 the first demand (0: unbounded).
func fzNewModel(t *testing.T, in *fuzzin.Bytes) *model {
	seed := in.Seed()
	b0, b1, b2, b3, b4 := in.Byte(), in.Byte(), in.Byte(), in.Byte(), in.Byte()
	ctls := []adaptive.Controller{chaos{}, adaptive.Hill{MinSamples: 2}, adaptive.Fixed{}, nil}
	lo := 1 + int(b0)%3
	hi := lo + int(b1)%6
	cfg := adaptive.Config{Min: lo, Max: hi, Initial: lo + int(b2%8)%(hi-lo+1), Unordered: b3&4 != 0,
		CancelOnError: b3&8 != 0, Controller: ctls[b3%4], Seed: seed, Queue: int(b4 % 16)}
	s, err := adaptive.NewState[int, int](cfg)
	if err != nil {
		t.Fatalf("config %+v: %v", cfg, err)
	}
	m := &model{t: t, seed: seed, r: rand.New(rand.NewPCG(seed, 0xf022)), s: s, min: lo, max: hi, finished: map[uint64]bool{}}
	m.queue, m.credits = s.Status().Queue, s.Status().Queue
	if b4>>4 != 0 {
		m.deliver(agent.Pull{N: int(b4 >> 4)})
	} else {
		m.deliver(agent.Pull{N: agent.Unbounded})
	}
	return m
}

// fzStep decodes one record: the clock moves on by its fourth byte (see
// fuzzin.Delay), then comes what the kind says:
//
//	kind%16 0-4: 1 + a%3 items, within the input slots the feeder holds
//	        5-7: the end of the work a picks, failed if b%8 is 0
//	          8: a limit set by hand to a%12 - 2 (below 1 is ignored)
//	       9-10: a grant of 1 + a%3 demand
//	         11: a query
//	         12: a message to ignore that a picks
//	      13-14: nothing but the step of the clock
//	         15: Close, once, if a%8 is 0 (else nothing but the clock)
func fzStep(m *model, in *fuzzin.Bytes) {
	kind, a, b, dt := in.Byte(), in.Byte(), in.Byte(), in.Byte()
	m.now += fuzzin.Delay(dt)
	switch kind % 16 {
	case 0, 1, 2, 3, 4:
		fzPost(m, 1+int(a)%3)
	case 5, 6, 7:
		if len(m.running) > 0 {
			fzComplete(m, int(a), b%8 == 0)
		}
	case 8:
		m.deliver(agent.Set[adaptive.Limit]{Value: adaptive.Limit(int(a)%12 - 2)})
	case 9, 10:
		m.deliver(agent.Pull{N: 1 + int(a)%3})
	case 11:
		m.deliver(agent.Query{ID: uint64(a)})
	case 12:
		m.deliver([]agent.Msg{agent.Pull{N: -1}, agent.Pull{N: 0}, agent.Set[adaptive.Limit]{Value: -1},
			agent.Done[[]parallel.Result[int]]{ID: 1 << 40}, agent.Done[[]parallel.Result[int]]{ID: uint64(m.started)}}[a%5])
	case 15:
		if !m.closed && a%8 == 0 {
			m.deliver(agent.Close{})
		}
	}
}

// fzPost posts n items, no more than the feeder holds slots for, as post
// does.
func fzPost(m *model, n int) {
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

// fzComplete finishes the work in flight that pick chooses, as complete
// does, failing it if fail is set.
func fzComplete(m *model, pick int, fail bool) {
	id := m.running[pick%len(m.running)]
	m.running = slices.DeleteFunc(m.running, func(x uint64) bool { return x == id })
	m.finished[id] = true
	var err error
	if fail {
		err = fmt.Errorf("item %d failed", id)
	}
	m.deliver(agent.Done[[]parallel.Result[int]]{ID: id, Result: []parallel.Result[int]{{Seq: id, Value: int(id), Err: err}}})
}

// FuzzEvolveRetry drives Evolve, with retries and each controller,
// through the harness and model of package retryfuzz (see retryfuzz.Run)
// that also serve the target of the same name in package parallel, with
// the limit the controller's: each batch one item, the limit within
// [Min, Max] after every message, and no more in flight than it when work
// starts.
//
// The first three bytes are the configuration (see retryfuzz.Config and
// fzRetryState); the rest are records of four bytes, a kind, two
// arguments and a step of the clock.
func FuzzEvolveRetry(f *testing.F) {
	f.Add([]byte{0, 0, 0})
	// Hill between 3 and 5, three attempts, a first wait of up to 1ms:
	// failures retried until they succeed or the attempts run out.
	f.Add([]byte{0x1a, 0x14, 0x01,
		0, 2, 0, 0, 5, 0, 0x07, 0x21, 5, 0, 0xff, 0x21, 14, 0, 0, 0x62, 5, 0, 0xff, 0x21,
		5, 1, 0, 0x21, 14, 0, 0, 0x62, 5, 0, 0xff, 0x21, 5, 0, 0, 0x61, 15, 0, 0, 0x61})
	// Limits at random between 3 and 6, unordered, two attempts: a wait
	// asked for by the work, a failure not worth retrying, limits by hand.
	f.Add([]byte{0x4d, 0x0b, 0x09,
		0, 2, 0, 0, 5, 0xa3, 0x01, 0x21, 14, 0, 0, 0x64, 5, 0xc0, 0x01, 0x21,
		10, 1, 0, 0, 12, 9, 0, 0, 9, 0, 0, 0, 5, 0, 0, 0x62, 5, 0, 0, 0x61, 15, 0, 0, 0x81})
	// Fixed at 3, cancelling on error, four attempts, a demand of 2: a
	// failure not worth retrying cancels the retry of another.
	f.Add([]byte{0xa1, 0x1f, 0x35,
		0, 2, 0, 0, 5, 0, 0xff, 0x01, 5, 0xc0, 0x01, 0x01, 10, 3, 0, 0, 13, 0, 0, 0,
		0, 1, 0, 0, 10, 3, 0, 0, 5, 0, 0, 0x21, 15, 0, 0, 0x61})
	f.Fuzz(func(t *testing.T, data []byte) {
		retryfuzz.Run(t, fzRetryAgent, data, fzMaxSteps)
	})
}

// fzRetryAgent is the agent FuzzEvolveRetry drives: the limit is the
// controller's, and set by hand to a%10 - 1 (below 1 is ignored).
var fzRetryAgent = retryfuzz.Agent[adaptive.State[int, int], adaptive.Status]{
	New:     fzRetryState,
	RetryIf: func(_, c1 byte) bool { return c1&0x20 != 0 },
	Evolve:  adaptive.Evolve[int, int],
	Status:  adaptive.State[int, int].Status,
	Base:    func(st adaptive.Status) parallel.Status { return st.Status },
	SetLimit: func(a byte) (agent.Msg, int) {
		return agent.Set[adaptive.Limit]{Value: adaptive.Limit(int(a)%10 - 1)}, 0
	},
}

// fzRetryState builds the agent from the configuration the model decoded
// (the input's seed its Seed too) and the bits of c0 and c1 it leaves to
// the agent:
//
//	c0: Min 1 + c0%3, Max Min + (c0>>2)%4; (c0>>4)%4 the controller
//	    (chaos, Hill, Fixed, a zero Hill); bit 6 unordered; bit 7 cancel
//	    on error
//	c1: bit 5 a Retry.If that retries all but the model's permanent
//	    failure (see fzRetryAgent.RetryIf); c1>>6 the initial limit,
//	    within [Min, Max]
func fzRetryState(c retryfuzz.Config) (adaptive.State[int, int], retryfuzz.Setup, error) {
	lo := 1 + int(c.C0)%3
	hi := lo + int(c.C0>>2)%4
	ctls := []adaptive.Controller{chaos{}, adaptive.Hill{MinSamples: 2}, adaptive.Fixed{}, nil}
	cfg := adaptive.Config{
		Min: lo, Max: hi, Initial: lo + int(c.C1>>6)%(hi-lo+1), Queue: c.Queue, Controller: ctls[c.C0>>4%4],
		Unordered: c.C0&0x40 != 0, CancelOnError: c.C0&0x80 != 0, Seed: c.Seed, Retry: c.Retry,
	}
	s, err := adaptive.NewState[int, int](cfg)
	if err != nil {
		return s, retryfuzz.Setup{}, fmt.Errorf("%+v: %w", cfg, err)
	}
	return s, retryfuzz.Setup{
		Min: lo, Max: hi, MaxBatch: 1, Unordered: cfg.Unordered, CancelOnError: cfg.CancelOnError,
	}, nil
}
