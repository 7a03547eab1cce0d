package buffer_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/internal/fuzzin"
)

// FuzzEvolve drives Evolve with message sequences decoded from the fuzzer's
// bytes, through the harness and model of TestProperties, so that every
// message is checked as there: the batches cut where the package doc says,
// none over Size or MaxWeight unless of one item, the input slots, the
// demand, the linger timer and its bound after every message; after Close
// and the drain, that every accepted item was flushed once, in order, and
// Finish came once with the first failure.
//
// The first five bytes are the configuration (size, max weight, max wait,
// queue bound, how demand comes); the rest are records of four bytes, a
// kind, two arguments and a step of the clock (see fzStep). The clock
// delivers the Ticks of the timers the agent armed at their due instants
// as it passes them, as the runtime would; Input comes only within the
// input slots the agent gave back, and a Done only for the flush running.
func FuzzEvolve(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0})
	// Size 3, MaxWait 5ms, queue 6: full batches, a linger cut, a failed
	// flush, a stale Tick, a query, Close.
	f.Add([]byte{2, 0, 68, 3, 0,
		0, 1, 0, 0, 6, 2, 0, 0x21, 0, 2, 0, 0x21, 13, 0, 0, 0x82, 6, 2, 0, 0, 0, 3, 0, 0x41,
		6, 0, 0, 0, 12, 5, 0, 0x61, 11, 0, 0, 0, 6, 3, 0, 0, 15, 0, 0, 0x81})
	// Cut by weight alone, max weight 10, queue 6, demand a little at a
	// time: items light, heavy and over the max weight, a panicking flush.
	f.Add([]byte{12, 10, 0, 5, 3,
		0, 3, 0x05, 0x21, 6, 2, 0, 0, 1, 2, 0x19, 0x61, 9, 0, 0, 0, 6, 1, 0, 0x21,
		0, 0, 0x1d, 0x41, 10, 1, 0, 0, 6, 2, 0, 0, 2, 3, 0x3e, 0x21, 9, 1, 0, 0x61,
		6, 4, 0, 0, 12, 3, 0, 0, 15, 0, 0, 0})
	// Size 4, max weight 20, MaxWait 20ms, queue 16, no demand at first.
	f.Add([]byte{3, 20, 83, 12, 1,
		0, 3, 0x09, 0x61, 1, 3, 0x0d, 0x62, 9, 1, 0, 0x41, 6, 2, 0, 0x22, 2, 3, 0x31, 0xa1,
		10, 1, 0, 0x82, 6, 2, 0, 0x21, 3, 1, 0x00, 0xa3, 6, 2, 0, 0, 14, 0, 0, 0xc1, 15, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzin.New(data)
		m := fzNewSim(t, in)
		for n := 0; in.More() && n < fzMaxSteps && m.finishes == 0; n++ {
			fzStep(m, in)
		}
		if !m.closed {
			fzClose(m)
		}
		m.drain()
		m.finalChecks()
	})
}

// fzMaxSteps bounds the messages decoded from one input, to keep each run
// of the fuzz function short.
const fzMaxSteps = 400

// fzNewSim builds the harness for the configuration the input starts
// with, as newSim does for a seed, and grants the first demand as run
// does. The harness's own draws (the demand granted while draining) come
// from a generator seeded by the input's first bytes.
//
//	size:      1 + b0%8, or none (b0%16 >= 12) when cut by weight
//	maxWeight: b1%32, none if 0
//	maxWait:   1 + b2%64 ms if b2 >= 64, else none
//	queue:     the default if b3 is 0, else at least one batch more b3%32
//	throttled: b4 odd, with a first demand of b4/2 % 3
func fzNewSim(t *testing.T, in *fuzzin.Bytes) *sim {
	seed := in.Seed()
	b0, b1, b2, b3, b4 := in.Byte(), in.Byte(), in.Byte(), in.Byte(), in.Byte()
	cfg := buffer.Config[int]{Size: 1 + int(b0)%8}
	if b1%32 != 0 {
		cfg.MaxWeight = int(b1 % 32)
		cfg.Weight = func(int) int { return 0 } // Evolve gets each weight in its Item
		if b0%16 >= 12 {
			cfg.Size = 0
		}
	}
	if b2 >= 64 {
		cfg.MaxWait = time.Duration(1+int(b2)%64) * time.Millisecond
	}
	if b3 != 0 {
		cfg.Queue = max(cfg.Size, 1) + int(b3)%32
	}
	s, err := buffer.NewState(cfg)
	if err != nil {
		t.Fatalf("config %+v: %v", cfg, err)
	}
	m := &sim{
		t: t, seed: seed, rng: rand.New(rand.NewPCG(seed, 0xf022)), cfg: cfg, throttled: b4&1 == 1,
		queue: s.Status().Queue, s: s, now: time.Unix(0, 0), credits: s.Status().Queue,
	}
	if m.throttled {
		m.send(agent.Pull{N: int(b4>>1) % 3})
	} else {
		m.send(agent.Pull{N: agent.Unbounded})
	}
	return m
}

// fzStep decodes one record: the clock moves on by its fourth byte (see
// fuzzin.Delay), delivering the timers due on the way, then comes what the kind
// says:
//
//	kind%16 0-5: 1 + a%4 items, within the input slots the feeder holds,
//	             plain or with the weights b picks
//	        6-8: the end of the running flush: a failure if a%8 is 0, a
//	             panic if it is 1
//	       9-10: a grant of 1 + a%2 demand, if demand comes a little at a
//	             time
//	         11: a query
//	         12: a message to ignore, or of a type it does not take, that a
//	             picks
//	      13-14: nothing but the step of the clock
//	         15: Close, once, if a%8 is 0 (else nothing but the clock)
func fzStep(m *sim, in *fuzzin.Bytes) {
	kind, a, b, dt := in.Byte(), in.Byte(), in.Byte(), in.Byte()
	m.advance(fuzzin.Delay(dt))
	switch kind % 16 {
	case 0, 1, 2, 3, 4, 5:
		if m.credits > 0 && !m.closed {
			fzPost(m, 1+int(a)%min(m.credits, 4), b)
		}
	case 6, 7, 8:
		if m.running != nil {
			fzComplete(m, a)
		}
	case 9, 10:
		if m.throttled {
			m.send(agent.Pull{N: 1 + int(a)%2})
		}
	case 11:
		m.query()
	case 12:
		fzJunk(m, a)
	case 15:
		if !m.closed && a%8 == 0 {
			fzClose(m)
		}
	}
}

// fzClose ends the input, as run does: the open batch is cut.
func fzClose(m *sim) {
	m.closed = true
	m.expectCut()
	m.send(agent.Close{})
}

// fzPost sends n items as post does: plain ones when pick's low bits are
// 0 (weighing nothing), else Items whose weights pick chooses.
func fzPost(m *sim, n int, pick byte) {
	plain := pick%4 == 0
	items := make([]buffer.Item[int], n)
	for i := range items {
		items[i] = buffer.Item[int]{Value: len(m.arrived)}
		if !plain {
			items[i].Weight = fzWeight(m, int(pick>>2)+3*i)
		}
		m.arrived = append(m.arrived, m.now)
		m.weights = append(m.weights, max(items[i].Weight, 0)) // a negative weight counts as 0
		m.expectItem(items[i].Value)
	}
	m.credits -= n
	m.items += n
	if !plain {
		m.send(agent.Input[buffer.Item[int]]{Items: items})
		return
	}
	values := make([]int, n)
	for i, it := range items {
		values[i] = it.Value
	}
	m.send(agent.Input[int]{Items: values})
}

// fzWeight picks an item's weight as weight does, k choosing: nothing, a
// little, the max weight or more, less than nothing, or the largest int.
func fzWeight(m *sim, k int) int {
	most := max(m.cfg.MaxWeight, 8)
	ws := []int{0, 1, 2, most / 3, most - 1, most, most + 1, 2 * most, -1, 1, 3, most / 2, 0, -most, 1, math.MaxInt}
	w := ws[k%len(ws)]
	if w == math.MaxInt && m.cfg.MaxWeight == 0 {
		return most // weights add up in Status.Weight: keep them small
	}
	return w
}

// fzComplete ends the running flush as complete does, failing it or
// panicking as pick says.
func fzComplete(m *sim, pick byte) {
	var err error
	switch pick % 8 {
	case 0:
		err = fmt.Errorf("flush %d failed", m.running.ID)
	case 1:
		err = &agent.PanicError{Value: m.running.ID}
	}
	m.send(agent.Done[struct{}]{ID: m.running.ID, Err: err})
}

// fzJunk sends what junk and unhandled send, the one pick chooses: a
// message of a type the agent does not take, which it must report
// unhandled, or one that must change nothing (a repeated Tick, a Done for
// no running flush, a Pull of nothing).
func fzJunk(m *sim, pick byte) {
	wrong := []agent.Msg{
		agent.Set[int]{Value: 1},
		agent.Input[string]{Items: []string{"x"}},
		agent.Done[int]{ID: uint64(len(m.started))},
	}
	ignored := []agent.Msg{
		agent.Done[struct{}]{ID: uint64(len(m.started) + 1)},
		agent.Pull{N: 0},
		agent.Pull{N: -1},
	}
	for _, tag := range m.fired {
		ignored = append(ignored, agent.Tick{Tag: tag})
	}
	k := int(pick) % (len(wrong) + len(ignored))
	if k < len(wrong) {
		msg := wrong[k]
		m.messages++
		m.tally.unhandled++
		next, fx := buffer.Evolve(m.s, agent.Stamp(msg, m.now))
		if !reflect.DeepEqual(fx, []agent.Effect{agent.Unhandled{}}) || !reflect.DeepEqual(next, m.s) {
			m.fatalf("%#v: got %v, want Unhandled alone and no change", msg, fx)
		}
		return
	}
	msg := ignored[k-len(wrong)]
	before := m.s
	if fx := m.send(msg); len(fx) > 0 || !reflect.DeepEqual(m.s, before) {
		m.fatalf("%#v was not ignored: %v", msg, fx)
	}
}
