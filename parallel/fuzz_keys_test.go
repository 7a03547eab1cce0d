package parallel_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/fair"
	"github.com/evolvekit/evolve/internal/fuzzin"
	"github.com/evolvekit/evolve/parallel"
)

// FuzzEvolveKeys drives a keyed agent's Evolve with message sequences
// decoded from the fuzzer's bytes, as the runtime could send them: items
// of up to four keys within the input slots given back, the Done of a
// batch in flight (with its results, too few of them, or an error, after
// any time), demand, limits good and bad, Close. After every step: no more
// batches in flight than the limit allows, no input slot given back twice
// nor a key's credit, each key's items start in the order they came; at
// the end, after the drain, every item came out exactly once (in its
// key's order, in order), and Finish came once.
//
// The first three bytes are the configuration: c0 the limit (1 + c0%4) and
// whether ordered (bit 7); c1 the batches (MaxBatch 1, 3 or the default)
// and the quantum (1 + c1>>2 % 8 ms); c2 the weights of keys "b" and "c"
// (1 + c2%4, 1 + c2>>2%4). The rest are records of three bytes: a kind,
// an argument and a step of the clock.
func FuzzEvolveKeys(f *testing.F) {
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{0x82, 0x05, 0x06,
		0, 0x13, 1, 0, 0x22, 0, 0, 0x31, 0, 1, 0, 4, 1, 1, 9, 2, 0x10, 0, 3, 0, 0, 1, 1, 1, 4, 0, 1})
	f.Add([]byte{3, 0x21, 0x0f,
		0, 0x07, 0, 0, 0x17, 0, 0, 0x27, 0, 0, 0x37, 0, 1, 0, 1, 1, 2, 2, 1, 0, 3, 5, 3, 0, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzin.New(data)
		k := newKeyFuzz(t, in)
		for n := 0; in.More() && n < fzMaxSteps && !k.finished; n++ {
			k.step(in.Byte(), in.Byte(), in.Byte())
		}
		k.drain()
	})
}

// keyItem is an item of the keyed fuzz: its key and its place among its
// key's items.
type keyItem struct {
	key string
	n   int
}

func keyItemKey(it keyItem) string { return it.key }

// keyFuzz is the harness and model of FuzzEvolveKeys.
type keyFuzz struct {
	t        *testing.T
	s        parallel.State[keyItem, string]
	now      time.Time
	limit    int
	ordered  bool
	slots    int // input slots held: items accepted and not given back
	posted   map[string]int
	started  map[string]int // each key's items started, the next n expected
	out      map[string]int // each key's results emitted, the next n expected when ordered
	flying   []agent.Start[[]keyItem]
	finished bool
	total    int
	emitted  int
}

func newKeyFuzz(t *testing.T, in *fuzzin.Bytes) *keyFuzz {
	c0, c1, c2 := in.Byte(), in.Byte(), in.Byte()
	cfg := parallel.Config{
		Limit: 1 + int(c0)%4, Unordered: c0&0x80 == 0, MaxBatch: []int{1, 3, 0, 0}[c1&3],
		Queue: 8, Quantum: time.Duration(1+int(c1>>2)%8) * time.Millisecond,
		Key: keyItemKey, Weights: map[string]int{"b": 1 + int(c2)%4, "c": 1 + int(c2>>2)%4},
	}
	s, err := parallel.NewState[keyItem, string](cfg)
	if err != nil {
		t.Fatal(err)
	}
	k := &keyFuzz{t: t, s: s, now: time.Unix(0, 0), limit: cfg.Limit, ordered: !cfg.Unordered,
		posted: map[string]int{}, started: map[string]int{}, out: map[string]int{}}
	k.apply(agent.Pull{N: agent.Unbounded})
	return k
}

// step decodes one message from kind and arg, after a step of the clock.
func (k *keyFuzz) step(kind, arg, dt byte) {
	k.now = k.now.Add(fuzzin.Delay(dt))
	switch kind % 6 {
	case 0, 1: // items of a key, within the slots free
		n := min(1+int(arg>>4)%4, 8-k.slots)
		if n <= 0 {
			return
		}
		key := string(rune('a' + arg%4))
		items := make([]keyItem, n)
		for i := range items {
			items[i] = keyItem{key, k.posted[key] + i}
		}
		k.posted[key] += n
		k.slots += n
		k.total += n
		k.apply(agent.Input[keyItem]{Items: items})
	case 2, 3: // a batch in flight ends
		if len(k.flying) == 0 {
			return
		}
		i := int(arg) % len(k.flying)
		b := k.flying[i]
		k.flying = append(k.flying[:i], k.flying[i+1:]...)
		k.apply(k.done(b, arg))
	case 4: // a limit, good or bad
		k.limit = int(arg%5) - 1
		k.apply(agent.Set[parallel.Limit]{Value: parallel.Limit(k.limit)})
		if k.limit < 1 {
			k.limit = k.s.Status().Limit
		}
	case 5:
		k.apply(agent.Close{})
	}
}

// done returns the Done of batch b: its results, or, by arg, too few of
// them, or an error for all.
func (k *keyFuzz) done(b agent.Start[[]keyItem], arg byte) agent.Done[[]parallel.Result[string]] {
	d := agent.Done[[]parallel.Result[string]]{ID: b.ID, Took: time.Duration(arg) * 100 * time.Microsecond}
	switch {
	case arg&0xc0 == 0xc0:
		d.Err = fmt.Errorf("batch %d failed", b.ID)
		return d
	case arg&0xc0 == 0x80 && len(b.Work) > 1:
		b.Work = b.Work[:len(b.Work)-1] // too few results: the last fails
	}
	for i, it := range b.Work {
		d.Result = append(d.Result, parallel.Result[string]{Seq: b.ID + uint64(i), Value: fmt.Sprintf("%s/%d", it.key, it.n)})
	}
	return d
}

// apply steps the agent with m at the clock's instant, performs what it
// asks for, and checks.
func (k *keyFuzz) apply(m agent.Msg) {
	switch v := m.(type) {
	case agent.Pull:
		v.At = k.now
		m = v
	case agent.Input[keyItem]:
		v.At = k.now
		m = v
	case agent.Done[[]parallel.Result[string]]:
		v.At = k.now
		m = v
	case agent.Set[parallel.Limit]:
		v.At = k.now
		m = v
	case agent.Close:
		v.At = k.now
		m = v
	}
	var fx []agent.Effect
	k.s, fx = parallel.Evolve(k.s, m)
	freed, startedNow := 0, false
	for _, e := range fx {
		switch e := e.(type) {
		case agent.Start[[]keyItem]:
			startedNow = true
			for _, it := range e.Work {
				if it.n != k.started[it.key] {
					k.t.Fatalf("key %s's item %d started after %d of its items", it.key, it.n, k.started[it.key])
				}
				k.started[it.key]++
			}
			k.flying = append(k.flying, e)
		case agent.Demand:
			k.slots -= e.N
			if k.slots < 0 {
				k.t.Fatalf("gave back %d input slots more than it held", -k.slots)
			}
			if freed != e.N {
				k.t.Fatalf("gave back %d slots after naming %d keys' slots", e.N, freed)
			}
			freed = 0
		case agent.Emit[parallel.Result[string]]:
			for _, r := range e.Values {
				var key string
				var n int
				if r.Err != nil {
					// a failed item's value is lost; count it by the key's next
					k.emitted++
					continue
				}
				if _, err := fmt.Sscanf(r.Value, "%1s/%d", &key, &n); err != nil {
					k.t.Fatalf("result %q: %v", r.Value, err)
				}
				if k.ordered && n < k.out[key] {
					k.t.Fatalf("key %s's result %d came after its %d", key, n, k.out[key])
				}
				k.out[key] = n + 1
				k.emitted++
			}
		case agent.Finish:
			if k.finished {
				k.t.Fatal("finished twice")
			}
			k.finished = true
		case agent.Send[fair.Freed]:
			for _, r := range e.Value.Runs {
				freed += r.N
			}
		}
	}
	if freed != 0 {
		k.t.Fatalf("named %d keys' slots and gave none back", freed)
	}
	if st := k.s.Status(); len(k.flying) != st.Batches {
		k.t.Fatalf("%d batches in flight by the Status, %d by the model", st.Batches, len(k.flying))
	}
	if startedNow && len(k.flying) > k.limit {
		k.t.Fatalf("started work with %d batches in flight over a limit of %d", len(k.flying), k.limit)
	}
}

// drain closes the input and ends every batch in flight, until Finish.
func (k *keyFuzz) drain() {
	k.apply(agent.Close{})
	for range 10_000 {
		if len(k.flying) == 0 {
			break
		}
		b := k.flying[0]
		k.flying = k.flying[1:]
		k.now = k.now.Add(time.Millisecond)
		k.apply(k.done(b, 1))
	}
	if !k.finished {
		k.t.Fatalf("no Finish after the drain: %+v", k.s.Status())
	}
	if k.emitted != k.total {
		k.t.Fatalf("%d items came out of %d", k.emitted, k.total)
	}
}
