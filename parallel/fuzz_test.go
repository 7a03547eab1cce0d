package parallel_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/fuzzin"
	"github.com/evolvekit/evolve/internal/testing/retryfuzz"
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

// FuzzEvolveRetry drives Evolve, with retries, through the harness and
// model of package retryfuzz (see retryfuzz.Run): message sequences
// decoded from the fuzzer's bytes the way the runtime would send them,
// the effects and the Status checked against the model after every
// message, and after Close and the drain every accepted item out exactly
// once and Finish once, last.
//
// The first three bytes are the configuration (see retryfuzz.Config and
// fzRetryState); the rest are records of four bytes, a kind, two
// arguments and a step of the clock.
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
		retryfuzz.Run(t, fzRetryAgent, data, fzMaxSteps)
	})
}

// fzRetryAgent is the agent FuzzEvolveRetry drives: the limit is the
// model's to know, and set by hand to 1 + a%5.
var fzRetryAgent = retryfuzz.Agent[parallel.State[int, int], parallel.Status]{
	New:     fzRetryState,
	RetryIf: func(c0, _ byte) bool { return c0&0x40 != 0 },
	Evolve:  parallel.Evolve[int, int],
	Status:  parallel.State[int, int].Status,
	Base:    func(st parallel.Status) parallel.Status { return st },
	SetLimit: func(a byte) (agent.Msg, int) {
		limit := 1 + int(a)%5
		return agent.Set[parallel.Limit]{Value: parallel.Limit(limit)}, limit
	},
	Same: fzSameEffects,
}

// fzRetryState builds the agent from the configuration the model decoded
// and the bits of c0 it leaves to the agent:
//
//	c0: Limit 1 + c0%4; bits 2-3 MaxBatch (1, 2, 4 or the default); bit 4
//	    unordered; bit 5 cancel on error; bit 6 a Retry.If that retries all
//	    but the model's permanent failure (see fzRetryAgent.RetryIf)
func fzRetryState(c retryfuzz.Config) (parallel.State[int, int], retryfuzz.Setup, error) {
	cfg := parallel.Config{
		Limit: 1 + int(c.C0)%4, Queue: c.Queue, MaxBatch: []int{1, 2, 4, 0}[c.C0>>2%4],
		Unordered: c.C0&0x10 != 0, CancelOnError: c.C0&0x20 != 0, Retry: c.Retry,
	}
	s, err := parallel.NewState[int, int](cfg)
	if err != nil {
		return s, retryfuzz.Setup{}, fmt.Errorf("%+v: %w", cfg, err)
	}
	return s, retryfuzz.Setup{
		Limit: cfg.Limit, MaxBatch: s.Status().MaxBatch, Unordered: cfg.Unordered, CancelOnError: cfg.CancelOnError,
	}, nil
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
