package rate_test

import (
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/fair"
	"github.com/evolvekit/evolve/internal/fuzzin"
	"github.com/evolvekit/evolve/rate"
)

// FuzzEvolveKeys drives a keyed rate agent's Evolve with message sequences
// decoded from the fuzzer's bytes, as the runtime could send them: items
// of up to four keys and costs 1 to 3 within the input slots given back,
// demand a little at a time, the Ticks of the timers it armed (on time or
// late), stale Ticks, limits good and bad, Close. After every step: no
// item passes before one of its key that came earlier, every slot given
// back is named by its key first, no more tokens are spent than the
// bucket held; after the drain, every item came out exactly once, and
// Finish came once.
//
// The first three bytes are the configuration: c0 the rate (1 + c0%50 a
// second) and burst (1 + c0>>6); c1 the quantum (1 + c1%20 ms); c2 the
// weights of keys "b" and "c". The rest are records of three bytes: a
// kind, an argument and a step of the clock.
func FuzzEvolveKeys(f *testing.F) {
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{0x45, 3, 6, 0, 0x13, 1, 0, 0x22, 0, 0, 0x31, 0, 1, 2, 40, 2, 0, 90, 1, 5, 3, 3, 0, 0, 2, 0, 99})
	f.Add([]byte{0xc9, 0x11, 0x0f, 0, 0x07, 0, 0, 0x17, 0, 0, 0x27, 0, 4, 3, 0, 2, 0, 200, 5, 0, 0, 2, 0, 200})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzin.New(data)
		k := newRateKeyFuzz(t, in)
		for n := 0; in.More() && n < 300 && !k.finished; n++ {
			k.step(in.Byte(), in.Byte(), in.Byte())
		}
		k.drain()
	})
}

// rateKeyFuzz is the harness and model of FuzzEvolveKeys.
type rateKeyFuzz struct {
	t        *testing.T
	s        rate.State[call]
	now      time.Time
	slots    int
	demand   int
	posted   map[string]int
	out      map[string]int
	timer    *agent.Timer
	due      time.Time
	total    int
	emitted  int
	closed   bool
	finished bool
}

func newRateKeyFuzz(t *testing.T, in *fuzzin.Bytes) *rateKeyFuzz {
	c0, c1, c2 := in.Byte(), in.Byte(), in.Byte()
	cfg := rate.Config[call]{
		Rate: float64(1 + int(c0)%50), Burst: 3 + int(c0>>6), Queue: 8,
		Quantum: time.Duration(1+int(c1)%20) * time.Millisecond,
		Key:     callKey, Weights: map[string]int{"b": 1 + int(c2)%4, "c": 1 + int(c2>>2)%4},
	}
	s, err := rate.NewState(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &rateKeyFuzz{t: t, s: s, now: time.Unix(0, 0), posted: map[string]int{}, out: map[string]int{}}
}

// step decodes one message from kind and arg, after a step of the clock;
// a timer due by then ticks first.
func (k *rateKeyFuzz) step(kind, arg, dt byte) {
	k.now = k.now.Add(fuzzin.Delay(dt))
	if k.timer != nil && !k.due.After(k.now) {
		tag := k.timer.Tag
		k.timer = nil
		k.apply(agent.Tick{Tag: tag, At: k.now})
	}
	switch kind % 6 {
	case 0, 1:
		n := min(1+int(arg>>4)%4, 8-k.slots)
		if n <= 0 || k.closed {
			return
		}
		key := string(rune('a' + arg%4))
		items := make([]rate.Item[call], n)
		for i := range items {
			items[i] = rate.Item[call]{Value: call{key, k.posted[key] + i}, Cost: float64(1 + int(arg>>2)%3)}
		}
		k.posted[key] += n
		k.slots += n
		k.total += n
		k.apply(agent.Input[rate.Item[call]]{Items: items, At: k.now})
	case 2:
		k.demand += 1 + int(arg)%4
		k.apply(agent.Pull{N: 1 + int(arg)%4, At: k.now})
	case 3:
		k.apply(agent.Tick{Tag: uint64(arg), At: k.now}) // stale, mostly
	case 4:
		k.apply(agent.Set[rate.Limit]{Value: rate.Limit{Rate: float64(int(arg)%40) - 2, Burst: 3 + int(arg)%3}, At: k.now})
	case 5:
		k.closed = true
		k.apply(agent.Close{At: k.now})
	}
}

// apply steps the agent with m, performs what it asks for, and checks.
func (k *rateKeyFuzz) apply(m agent.Msg) {
	var fx []agent.Effect
	k.s, fx = rate.Evolve(k.s, m)
	freed := 0
	for _, e := range fx {
		switch e := e.(type) {
		case agent.Emit[call]:
			for _, c := range e.Values {
				if c.n != k.out[c.key] {
					k.t.Fatalf("key %s's item %d passed after %d of its items", c.key, c.n, k.out[c.key])
				}
				k.out[c.key]++
				k.emitted++
				k.demand--
			}
			if k.demand < 0 {
				k.t.Fatalf("emitted %d more than the demand", -k.demand)
			}
		case agent.Send[fair.Freed]:
			for _, r := range e.Value.Runs {
				freed += r.N
			}
		case agent.Demand:
			if freed != e.N {
				k.t.Fatalf("gave back %d slots after naming %d keys' slots", e.N, freed)
			}
			freed = 0
			k.slots -= e.N
			if k.slots < 0 {
				k.t.Fatalf("gave back %d input slots more than it held", -k.slots)
			}
		case agent.Timer:
			k.timer, k.due = &e, k.now.Add(e.Delay)
		case agent.Disarm:
			k.timer = nil
		case agent.Finish:
			if k.finished {
				k.t.Fatal("finished twice")
			}
			k.finished = true
		}
	}
	if freed != 0 {
		k.t.Fatalf("named %d keys' slots and gave none back", freed)
	}
}

// drain closes the input, grants the demand every item needs, sets a
// limit that lets them through, and ticks until Finish.
func (k *rateKeyFuzz) drain() {
	k.closed = true
	k.apply(agent.Close{At: k.now})
	k.demand += k.total
	k.apply(agent.Pull{N: k.total + 1, At: k.now})
	k.apply(agent.Set[rate.Limit]{Value: rate.Limit{Rate: 50, Burst: 3}, At: k.now})
	for range 10_000 {
		if k.finished || k.timer == nil {
			break
		}
		k.now = k.due
		tag := k.timer.Tag
		k.timer = nil
		k.apply(agent.Tick{Tag: tag, At: k.now})
	}
	if !k.finished {
		k.t.Fatalf("no Finish after the drain: %+v", k.s.Status(k.now))
	}
	if k.emitted != k.total {
		k.t.Fatalf("%d items came out of %d", k.emitted, k.total)
	}
}
