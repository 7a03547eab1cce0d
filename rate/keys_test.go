package rate_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/rate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// call is an item of a client: its key and its place among its items.
type call struct {
	key string
	n   int
}

func callKey(c call) string { return c.key }

// bucketRun drives a keyed rate agent in virtual time: items come as
// posted, and every Timer is answered with its Tick at its instant. It
// returns the values in the order they passed, with when each passed.
type bucketRun struct {
	t     *testing.T
	s     rate.State[call]
	now   time.Time
	timer *agent.Timer
	due   time.Time
	out   []call
	when  []time.Duration
}

func newBucketRun(t *testing.T, cfg rate.Config[call]) *bucketRun {
	s, err := rate.NewState(cfg)
	require.NoError(t, err)
	r := &bucketRun{t: t, s: s, now: time.Unix(0, 0)}
	r.step(agent.Pull{N: agent.Unbounded})
	return r
}

func (r *bucketRun) step(m agent.Msg) {
	var fx []agent.Effect
	switch m := m.(type) {
	case agent.Pull:
		m.At = r.now
		r.s, fx = rate.Evolve(r.s, m)
	case agent.Input[call]:
		m.At = r.now
		r.s, fx = rate.Evolve(r.s, m)
	case agent.Tick:
		m.At = r.now
		r.s, fx = rate.Evolve(r.s, m)
	case agent.Close:
		m.At = r.now
		r.s, fx = rate.Evolve(r.s, m)
	}
	for _, e := range fx {
		switch e := e.(type) {
		case agent.Emit[call]:
			for _, v := range e.Values {
				r.out = append(r.out, v)
				r.when = append(r.when, r.now.Sub(time.Unix(0, 0)))
			}
		case agent.Timer:
			r.timer, r.due = &e, r.now.Add(e.Delay)
		case agent.Disarm:
			r.timer = nil
		}
	}
}

// drain answers the timers until none is pending.
func (r *bucketRun) drain() {
	for range 1_000_000 {
		if r.timer == nil {
			return
		}
		tag := r.timer.Tag
		r.timer = nil
		r.now = r.due
		r.step(agent.Tick{Tag: tag})
	}
	r.t.Fatal("the timers did not end")
}

func calls(key string, from, n int) []call {
	out := make([]call, n)
	for i := range out {
		out[i] = call{key, from + i}
	}
	return out
}

// A big client's 100 calls queued before a small client's 5, at 100 a
// second: the small client's pass among the big one's first, not after
// all of them, and each client's in its order.
func TestAKeyedRateAgentSharesItsTokens(t *testing.T) {
	r := newBucketRun(t, rate.Config[call]{Rate: 100, Burst: 1, Key: callKey})
	r.step(agent.Input[call]{Items: calls("big", 0, 100)})
	r.step(agent.Input[call]{Items: calls("small", 0, 5)})
	r.drain()
	require.Len(t, r.out, 105)
	last, next := -1, map[string]int{}
	for i, c := range r.out {
		require.Equal(t, next[c.key], c.n, "client %s's calls pass in their order", c.key)
		next[c.key]++
		if c.key == "small" {
			last = i
		}
	}
	assert.Less(t, last, 12, "the small client's last call passes among the big one's first: %v", r.out[:20])
	assert.Equal(t, 1040*time.Millisecond, r.when[len(r.when)-1], "and the bucket's pace is kept: 105 calls at 100 a second, the first at once")
}

// Weights 1:3 share the tokens 1:3 while both have calls waiting.
func TestAKeyedRateAgentWeighsItsKeys(t *testing.T) {
	r := newBucketRun(t, rate.Config[call]{Rate: 1000, Burst: 1, Key: callKey, Weights: map[string]int{"gold": 3}})
	r.step(agent.Input[call]{Items: calls("basic", 0, 400)})
	r.step(agent.Input[call]{Items: calls("gold", 0, 400)})
	r.drain()
	counts := map[string]int{}
	for _, c := range r.out[:400] {
		counts[c.key]++
	}
	assert.InDelta(t, 300, counts["gold"], 3, "of the first 400 calls, gold's share is three quarters: %v", counts)
}

// TestStatusGivesEachKeysItemsAndWeight: halfway through two clients'
// calls at weights 3:1, Status counts each client's calls waiting and
// those its line let through, with its weight; once all passed, no key is
// left in them.
func TestStatusGivesEachKeysItemsAndWeight(t *testing.T) {
	r := newBucketRun(t, rate.Config[call]{Rate: 1000, Burst: 1, Key: callKey, Weights: map[string]int{"gold": 3}})
	r.step(agent.Input[call]{Items: calls("basic", 0, 40)})
	r.step(agent.Input[call]{Items: calls("gold", 0, 40)})
	for range 39 {
		tag := r.timer.Tag
		r.now = r.due
		r.step(agent.Tick{Tag: tag})
	}
	st := r.s.Status(r.now)
	require.Len(t, r.out, 40)
	assert.Equal(t, map[string]int{"basic": 1, "gold": 3}, st.Weights)
	assert.Equal(t, 80-len(r.out), st.Keys["basic"]+st.Keys["gold"], "every call waiting, counted by key")
	assert.InDelta(t, 3, float64(st.Started["gold"])/float64(st.Started["basic"]), 0.5, "gold let through three times as many: %v", st.Started)
	r.drain()
	st = r.s.Status(r.now)
	assert.Empty(t, st.Keys)
	assert.Empty(t, st.Started)
	plain, err := rate.NewState(rate.Config[call]{Rate: 1, Burst: 1})
	require.NoError(t, err)
	assert.Nil(t, plain.Status(r.now).Keys, "an agent without a Key has no keys")
}

// Random fleets of keys, weights and costs: the tokens passed per weight
// of any two keys both waiting since some instant stay within the bound,
// a quantum plus an item per weight, plus what the first guess of a
// key's cost could miss by.
func TestAKeyedRateAgentKeepsTheBound(t *testing.T) {
	worst := 0.0
	fleets := 200
	if testing.Short() || raceOn {
		fleets = 40
	}
	for seed := range uint64(fleets) {
		rng := rand.New(rand.NewPCG(seed, 9))
		keys := 2 + rng.IntN(4)
		weights := map[string]int{}
		costs := map[string]float64{}
		for k := range keys {
			name := fmt.Sprint("k", k)
			weights[name] = []int{1, 2, 4}[rng.IntN(3)]
			costs[name] = float64(1 + rng.IntN(4))
		}
		burst := 4
		rateN := float64(100 + rng.IntN(900))
		quantum := time.Duration(1+rng.IntN(10)) * time.Millisecond
		st, err := rate.NewState(rate.Config[call]{Rate: rateN, Burst: burst, Quantum: quantum, Key: callKey, Weights: weights})
		require.NoError(t, err)
		now := time.Unix(0, 0)
		st, _ = rate.Evolve(st, agent.Pull{N: agent.Unbounded, At: now})
		queued := map[string]int{}
		passed := map[string]float64{}
		base := map[[2]string][2]float64{}
		var timer *agent.Timer
		var due time.Time
		posted := map[string]int{}
		perToken := float64(time.Second) / rateN
		L := 4 * perToken // the dearest item's bucket time
		for step := range 1500 {
			var m agent.Msg
			total := 0
			for _, n := range queued {
				total += n
			}
			if timer == nil || total < 200 && rng.IntN(4) == 0 {
				k := fmt.Sprint("k", rng.IntN(keys))
				n := 1 + rng.IntN(20)
				items := make([]rate.Item[call], n)
				for i := range items {
					items[i] = rate.Item[call]{Value: call{k, posted[k] + i}, Cost: costs[k]}
				}
				posted[k] += n
				queued[k] += n
				now = now.Add(time.Duration(rng.IntN(3)) * time.Millisecond)
				if timer != nil && due.Before(now) {
					now = due
				}
				m = agent.Input[rate.Item[call]]{Items: items, At: now}
			} else {
				now, m = due, agent.Tick{Tag: timer.Tag, At: due}
				timer = nil
			}
			before := map[string]bool{}
			for k, n := range queued {
				before[k] = n > 0
			}
			var fx []agent.Effect
			st, fx = rate.Evolve(st, m)
			for _, e := range fx {
				switch e := e.(type) {
				case agent.Emit[call]:
					for _, v := range e.Values {
						queued[v.key]--
						passed[v.key] += costs[v.key] * perToken
					}
				case agent.Timer:
					timer, due = &e, now.Add(e.Delay)
				case agent.Disarm:
					timer = nil
				}
			}
			for i := range keys {
				for j := i + 1; j < keys; j++ {
					a, b := fmt.Sprint("k", i), fmt.Sprint("k", j)
					pair := [2]string{a, b}
					if queued[a] == 0 || queued[b] == 0 {
						delete(base, pair)
						continue
					}
					p, ok := base[pair]
					if !ok {
						base[pair] = [2]float64{passed[a], passed[b]}
						continue
					}
					wa, wb := float64(weights[a]), float64(weights[b])
					dev := (passed[a]-p[0])/wa - (passed[b]-p[1])/wb
					if dev < 0 {
						dev = -dev
					}
					terms := float64(quantum) + L/wa + L/wb
					worst = max(worst, dev/terms)
					// The first guess of a key's cost, a quantum, misses by
					// at most a quantum or an item.
					miss := max(float64(quantum), L)
					if dev > terms+miss/wa+miss/wb {
						t.Fatalf("seed %d step %d: keys %s (w %v) and %s (w %v) apart by %v per weight, over %v",
							seed, step, a, wa, b, wb, time.Duration(dev), time.Duration(terms+miss/wa+miss/wb))
					}
				}
			}
		}
	}
	t.Logf("%d fleets: worst deviation %.2fx Q + L/w(i) + L/w(j)", fleets, worst)
}

// Post lets one key fill only its part of the queue: the others' calls
// still get in.
func TestAKeyedRateAgentBoundsEachKeysPosts(t *testing.T) {
	rt := agent.NewRuntime()
	defer func() { require.NoError(t, rt.Shutdown(context.Background())) }()
	var got []call
	a, err := rate.New(rt, rate.Config[call]{Rate: 1, Burst: 1, Queue: 8, KeyQueue: 2, Key: callKey}, func(c call) { got = append(got, c) })
	require.NoError(t, err)
	posted := 0
	for i := range 10 {
		if err := a.TryPost(call{"big", i}); err != nil {
			require.ErrorIs(t, err, agent.ErrFull)
			break
		}
		posted++
	}
	assert.GreaterOrEqual(t, posted, 2, "the big client gets its part")
	assert.LessOrEqual(t, posted, 3, "and the one the bucket let through at once")
	require.NoError(t, a.TryPost(call{"small", 0}), "the small client's call gets in beside the big one's")
	require.NoError(t, a.Stop(context.Background()))
}

func TestAKeyedRateAgentsConfigIsChecked(t *testing.T) {
	for cfg, want := range map[*rate.Config[call]]string{
		{Rate: 1, Burst: 1, Weights: map[string]int{"a": 2}}:               "weights need a key",
		{Rate: 1, Burst: 1, Key: callKey, Weights: map[string]int{"a": 0}}: `weight of key "a" must be at least 1, got 0`,
		{Rate: 1, Burst: 1, Key: callKey, Quantum: -1}:                     "quantum must not be negative",
		{Rate: 1, Burst: 1, Key: callKey, KeyQueue: -1}:                    "key queue must not be negative",
	} {
		_, err := rate.NewState(*cfg)
		require.ErrorIs(t, err, rate.ErrConfig)
		assert.Contains(t, err.Error(), want)
	}
}

// A keyed State is a value as any other: evolving an earlier one again
// does what it did the first time.
func TestAKeyedStateIsAValue(t *testing.T) {
	s0, err := rate.NewState(rate.Config[call]{Rate: 10, Burst: 2, Key: callKey})
	require.NoError(t, err)
	at := time.Unix(0, 0)
	s0, _ = rate.Evolve(s0, agent.Pull{N: agent.Unbounded, At: at})
	in := agent.Input[call]{Items: append(calls("a", 0, 5), calls("b", 0, 5)...), At: at}
	s1, fx1 := rate.Evolve(s0, in)
	_, fx2 := rate.Evolve(s0, in)
	assert.Equal(t, fx1, fx2)
	assert.Equal(t, 0, s0.Status(at).Queued, "the State given is as it was")
	assert.Equal(t, 8, s1.Status(at).Queued, "two of ten passed at once, on a burst of 2")
}
