package rate

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/fuzzin"
	"github.com/evolvekit/evolve/internal/pace"
)

// FuzzEvolve drives Evolve with message sequences decoded from the fuzzer's
// bytes, through the harness of TestProperties, so that every message is
// checked as there: the input slots, the demand, the passes owed and
// granted ahead of the items, the one live timer, no stall, and Drained and
// Finish when due after every message; after Close and the drain, that
// everything came out once, in order, and for a fixed limit and Ticks on
// time items and passes alike no faster than the bucket allows and no
// later than the exact model says.
//
// The first four bytes are the scenario (rate, burst, queue bound, whether
// the agent after it reserves passes, Ticks come late, items have costs,
// the limit changes and demand comes a little at a time); the rest are
// records of four bytes, a kind, two arguments and a step of the clock
// (see fzStep). The Ticks of the timers the agent armed are delivered as
// the clock passes their instants, at their due instants or, if the
// scenario says so, as late as the runtime may; Input comes only within
// the input slots the agent gave back and before Close, and only once it
// has finished does the sequence stop.
func FuzzEvolve(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0})
	// 0.5/s, burst 3, queue 4, items with costs, demand a little at a time:
	// items wait for tokens and for demand; a stale Tick; Close.
	f.Add([]byte{1, 2, 3, 5,
		0, 3, 0x05, 0, 6, 1, 0, 0, 1, 2, 0x22, 0xe1, 7, 3, 0, 0xc3, 10, 0, 0, 0,
		0, 0, 0x07, 0xe2, 6, 3, 1, 0xe1, 11, 0, 0, 0xe3, 15, 0, 0, 0xe5})
	// 10/s, burst 2, queue 8, the limit changing: valid limits and
	// invalid ones, a message of a type it does not take.
	f.Add([]byte{2, 1, 7, 2,
		0, 3, 0, 0, 1, 3, 0, 0x81, 9, 0x85, 4, 0xa2, 2, 2, 0, 0xa1, 9, 0, 1, 0,
		9, 0, 2, 0x41, 12, 1, 0, 0, 9, 3, 6, 0xc1, 0, 3, 0, 0xa5, 15, 0, 0, 0xc2})
	// 1000/s, burst 8, queue 16, odd costs, demand a little at a time with
	// more at the start: Ticks at the nanosecond, messages at their
	// instants.
	f.Add([]byte{0xff, 7, 15, 0x3d,
		0, 3, 0x0b, 0x61, 1, 3, 0x6e, 0x41, 2, 3, 0x23, 0x7f, 6, 3, 1, 0x85,
		3, 3, 0x1d, 0x62, 7, 2, 0, 0x81, 13, 0, 1, 0x9f, 8, 1, 0, 0x41, 15, 0, 0, 0x8f})
	// 3/s, burst 2, queue 4, paced, items with costs: passes reserved
	// while items wait for tokens go first, Close, Drained once the items
	// are out, a pass reserved and granted after it, then Last.
	f.Add([]byte{0, 1, 0x13, 1,
		0, 3, 0x02, 0, 13, 2, 1, 0x41, 1, 1, 0x05, 0x42, 13, 3, 0, 0x21, 15, 0, 0, 0xa3,
		13, 1, 1, 0x45, 11, 0, 0, 0xe5, 13, 1, 0, 0x41, 14, 0, 0, 0xe1})
	// 10/s, burst 1, queue 2, paced, items with costs, more demand at the
	// start: an item that the bucket could pay waits behind a pass, till
	// Last forgets the pass and lets it through; a Reservation after Last
	// is ignored.
	f.Add([]byte{2, 0, 0x11, 0x3d,
		0, 1, 12, 0, 13, 1, 0, 0x41, 0, 0, 1, 0x21, 14, 0, 0, 0x82, 13, 4, 0, 0x22,
		15, 0, 0, 0x61})
	// 10/s, burst 1, queue 2, paced, items with costs, Ticks that come
	// late: the Tick of a pass comes when the item waiting behind it is
	// due too, and both go out on it, the pass first.
	f.Add([]byte{2, 0, 0x31, 0x31,
		0, 1, 12, 0, 13, 1, 0, 0x41, 0, 0, 1, 0x21, 11, 0, 0, 0xe1, 15, 0, 0, 0x61})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzin.New(data)
		sm := fzNewSim(t, in)
		for n := 0; in.More() && n < fzMaxSteps && sm.finish == 0; n++ {
			fzStep(sm, in)
		}
		sm.drain()
		sm.checkOutput()
	})
}

// fzMaxSteps bounds the messages decoded from one input, to keep each run
// of the fuzz function short.
const fzMaxSteps = 300

// fzLimit decodes a limit from two bytes: a rate from the list
// randomExactLimit writes (a's high bit clear) or one of 0.1/s to 1000/s
// that a's low bits pick, and a burst of 1 + b%8. It also returns the rate
// as the exact number it stands for.
func fzLimit(a, b byte) (Limit, *big.Rat) {
	written := []string{"3", "0.5", "10", "1/3", "0.3", "7", "1000/7", "2.5"}
	exact, _ := new(big.Rat).SetString(written[int(a)%len(written)])
	if a&0x80 != 0 {
		exact.SetFloat64(math.Exp(float64(a&0x7f)/127*math.Log(1e4)) / 10)
	}
	r, _ := exact.Float64()
	return Limit{Rate: r, Burst: 1 + int(b)%8}, exact
}

// fzNewSim builds the harness for the scenario the input starts with, as
// newScenario and newSim do for a seed: the third byte's low four bits are
// the queue bound less one, its fifth bit whether the agent is paced, its
// sixth whether Ticks may come late. The harness's own draws come from a
// generator seeded by the input's first bytes, so that an input replays
// exactly.
func fzNewSim(t *testing.T, in *fuzzin.Bytes) *sim {
	seed := in.Seed()
	a, b, q, flags := in.Byte(), in.Byte(), in.Byte(), in.Byte()
	l, exact := fzLimit(a, b)
	sc := scenario{
		limit: l, exact: exact, queue: 1 + int(q)%16, paced: q&0x10 != 0, late: q&0x20 != 0,
		costs: flags&1 != 0, reshape: flags&2 != 0, throttled: flags&4 != 0,
	}
	sc.gap = time.Duration(float64(time.Second) / l.Rate)
	rnd := rand.New(rand.NewPCG(seed, 0xf022))
	sm := newSim(t, seed, sc, rnd)
	if sc.throttled && flags&8 != 0 {
		sm.deliver(agent.Pull{N: 1 + int(flags>>4)}) // more demand at the start
	}
	return sm
}

// fzStep decodes one record and plays it as step does: the clock moves on
// by the record's fourth byte (see fuzzin.Delay), delivering the Ticks that fall
// due on the way, then, unless a Tick finished the agent, the message the
// record stands for comes, before the Ticks due at its very instant if b is
// odd, after them if not:
//
//	kind%16 0-5: 1 + a%4 items, within the input slots the feeder holds,
//	             the costs of which b picks, until Close
//	        6-8: a grant of 1 + a%4 demand, if demand comes a little at a
//	             time
//	          9: a new limit (see fzLimit) if the limit changes; an invalid
//	             one if a is 0
//	         10: a stale Tick
//	         11: a query
//	         12: a message of a type it does not take
//	         13: if paced, a Reservation of a%5 passes (none: one like
//	             the first), after Last too, which forgets them; else
//	             nothing but the step of the clock
//	         14: the Reservation with Last, once, if paced and a%8 is 0
//	             (else nothing but the clock)
//	         15: Close, once, if a%8 is 0 (else nothing but the clock)
func fzStep(sm *sim, in *fuzzin.Bytes) {
	kind, a, b, dt := in.Byte(), in.Byte(), in.Byte(), in.Byte()
	next := sm.now.Add(fuzzin.Delay(dt))
	first := b&1 == 1
	sm.ticksUntil(next, !first)
	if sm.finish > 0 {
		return
	}
	sm.now = next
	if m := fzMessage(sm, kind, a, b); m != nil {
		sm.deliver(m)
	}
	sm.ticksUntil(next, true)
}

// fzMessage returns the message a record stands for, or nil if the driver
// may not send it now.
func fzMessage(sm *sim, kind, a, b byte) agent.Msg {
	switch kind % 16 {
	case 0, 1, 2, 3, 4, 5:
		if sm.credits > 0 && !sm.closed {
			return fzInput(sm, 1+int(a)%min(sm.credits, 4), b)
		}
	case 6, 7, 8:
		if sm.sc.throttled {
			return agent.Pull{N: 1 + int(a)%4}
		}
	case 9:
		if !sm.sc.reshape {
			return nil
		}
		if a == 0 {
			return agent.Set[Limit]{Value: []Limit{{Rate: 0, Burst: 1}, {Rate: math.Inf(1), Burst: 1},
				{Rate: math.NaN(), Burst: 2}, {Rate: 1, Burst: 0}}[b%4]}
		}
		l, _ := fzLimit(a, b>>1)
		return agent.Set[Limit]{Value: l}
	case 10:
		return agent.Tick{Tag: sm.staleTag()}
	case 11:
		return agent.Query{ID: uint64(a)}
	case 12:
		return []agent.Msg{agent.Done[int]{ID: 1}, agent.Done[struct{}]{ID: 1},
			agent.Set[float64]{Value: 9}, agent.Input[string]{Items: []string{"x"}}, pace.In(pace.Pass{N: 1})}[a%5]
	case 13:
		if sm.sc.paced {
			return pace.In(pace.Reservation{N: int(a) % 5})
		}
	case 14:
		if sm.sc.paced && !sm.last && a%8 == 0 {
			return pace.In(pace.Reservation{Last: true})
		}
	case 15:
		if !sm.closed && a%8 == 0 {
			return agent.Close{}
		}
	}
	return nil
}

// fzInput posts n items as input does, with costs that the bits of pick
// choose: when items have costs, any the Agent would accept, the odd ones
// (nothing, less than nothing, not a number, more than the burst) among
// them.
func fzInput(sm *sim, n int, pick byte) agent.Input[Item[int]] {
	burst := float64(sm.s.bucket.limit.Burst)
	costs := []float64{0, 0.25, 1, 1.5, 2.5, burst, -2, math.NaN(), math.Inf(1), 0.75, 3, 1e300, 0.5, 2, 1, burst + 1}
	items := make([]Item[int], n)
	for i := range items {
		v := len(sm.costs)
		items[i] = Item[int]{Value: v}
		if sm.sc.costs {
			items[i].Cost = costs[(int(pick)+5*i)%len(costs)]
		}
		sm.costs = append(sm.costs, items[i].price(sm.s.bucket.limit.Burst))
		sm.posted = append(sm.posted, sm.now)
	}
	sm.credits -= n
	return agent.Input[Item[int]]{Items: items}
}
