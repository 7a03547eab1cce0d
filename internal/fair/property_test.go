package fair

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// sim runs a Queue in virtual time: keys whose items arrive in bursts,
// at rates far apart, and whose work takes times far apart, go through
// slots workers; each item's work ends after its own time. After every
// instant it checks the package doc's bound for every pair of keys
// backlogged together, order within each key, that a free slot never
// leaves an item waiting, and what the Queue keeps.
type sim struct {
	t       *testing.T
	name    string
	r       *rand.Rand
	q       *Queue[int, item]
	now     time.Duration
	slots   int
	keys    []keySpec
	running []job
	seq     int
	charged []time.Duration // S(k), as the test counts it from Pop and Done
	pending []time.Duration // |took - charge| of k's items in flight
	last    []int           // the seq of k's last item started
	// back[k] holds, while k is backlogged, everyone's S and pending as it
	// became so; pair[i][j] the least and most S(i)/w(i) - S(j)/w(j) since
	// both were.
	back   [][]time.Duration
	pair   [][]span
	quant  time.Duration
	long   time.Duration // L: the longest any item's work takes
	worst  float64       // the most |deviation| / bound seen
	excess time.Duration // the most deviation beyond Q + L/w(i) + L/w(j), counted against the corrections
}

// keySpec is how one key's items come and what they cost.
type keySpec struct {
	weight     int
	cost       time.Duration // the mean time an item's work takes
	spread     float64       // each item's time is cost × U(1-spread, 1+spread)
	every      time.Duration // the gap between arrivals in a burst
	on, off    time.Duration // how long a burst lasts, and the pause after
	nextArrive time.Duration
	burstEnd   time.Duration
}

type item struct{ key, seq int }

type job struct {
	key          int
	seq          int
	charge, took time.Duration
	end          time.Duration
}

type span struct {
	lo, hi float64
	set    bool
	base   float64 // E(i)/w(i) + E(j)/w(j) at its most in the span
}

func newSim(t *testing.T, seed uint64) *sim {
	r := rand.New(rand.NewPCG(seed, 0xfa1e))
	s := &sim{t: t, name: fmt.Sprintf("seed %d", seed), r: r, slots: 1 + r.IntN(8)}
	s.quant = time.Duration(1+r.IntN(20)) * time.Millisecond
	q, err := New[int, item](s.quant)
	if err != nil {
		t.Fatal(err)
	}
	s.q = q
	n := 2 + r.IntN(5)
	for k := range n {
		ks := keySpec{
			weight: []int{1, 1, 2, 4}[r.IntN(4)],
			cost:   time.Duration(1+r.IntN(40)) * time.Millisecond,
			spread: []float64{0, 0, 0.5, 0.9}[r.IntN(4)],
			every:  time.Duration(1+r.IntN(200)) * time.Millisecond / 10,
			on:     time.Duration(1+r.IntN(3000)) * time.Millisecond,
			off:    time.Duration(r.IntN(3000)) * time.Millisecond,
		}
		if r.IntN(3) == 0 {
			ks.every *= 100 // one key posting a hundredth as often
		}
		ks.nextArrive = time.Duration(r.IntN(1000)) * time.Millisecond
		ks.burstEnd = ks.nextArrive + ks.on
		if err := q.SetWeight(k, ks.weight); err != nil {
			t.Fatal(err)
		}
		s.keys = append(s.keys, ks)
		s.long = max(s.long, time.Duration(float64(ks.cost)*(1+ks.spread))+1)
	}
	s.charged = make([]time.Duration, n)
	s.pending = make([]time.Duration, n)
	s.last = make([]int, n)
	for k := range s.last {
		s.last[k] = -1
	}
	s.back = make([][]time.Duration, n)
	s.pair = make([][]span, n)
	for i := range s.pair {
		s.pair[i] = make([]span, n)
	}
	return s
}

// run advances the simulation to until, then lets every item finish.
func (s *sim) run(until time.Duration) {
	for steps := 0; steps < 200000; steps++ {
		next := time.Duration(math.MaxInt64)
		for _, j := range s.running {
			next = min(next, j.end)
		}
		if s.now < until {
			for _, k := range s.keys {
				next = min(next, k.nextArrive)
			}
		}
		if next == time.Duration(math.MaxInt64) {
			break
		}
		s.now = max(s.now, next)
		s.finish()
		if s.now < until {
			s.arrive()
		}
		s.fill()
		s.check()
		if s.t.Failed() {
			return
		}
	}
	if s.q.Len() != 0 || len(s.running) != 0 {
		s.t.Fatalf("%s: %d items queued and %d running at the end", s.name, s.q.Len(), len(s.running))
	}
	if s.q.Flows() != 0 {
		s.t.Fatalf("%s: %d keys' accounts kept with nothing queued or in flight", s.name, s.q.Flows())
	}
}

// finish ends the work due by now.
func (s *sim) finish() {
	s.running = slices.DeleteFunc(s.running, func(j job) bool {
		if j.end > s.now {
			return false
		}
		s.q.Done(j.key, j.charge, j.took)
		s.charged[j.key] += j.took - j.charge
		s.pending[j.key] -= abs(j.took - j.charge)
		return true
	})
}

// arrive queues the items due by now.
func (s *sim) arrive() {
	for k := range s.keys {
		ks := &s.keys[k]
		for ks.nextArrive <= s.now {
			s.q.Push(k, item{key: k, seq: s.seq})
			s.seq++
			ks.nextArrive += ks.every
			if ks.nextArrive >= ks.burstEnd {
				ks.nextArrive = ks.burstEnd + ks.off
				ks.burstEnd = ks.nextArrive + ks.on
			}
		}
	}
}

// fill starts items while a slot is free.
func (s *sim) fill() {
	for len(s.running) < s.slots {
		k, v, charge, ok := s.q.Pop()
		if !ok {
			return
		}
		if v.key != k {
			s.t.Fatalf("%s: an item of key %d handed out as key %d's", s.name, v.key, k)
		}
		if v.seq <= s.last[k] {
			s.t.Fatalf("%s: key %d's item %d started after its item %d", s.name, k, v.seq, s.last[k])
		}
		s.last[k] = v.seq
		ks := s.keys[k]
		took := time.Duration(float64(ks.cost) * (1 + ks.spread*(2*s.r.Float64()-1)))
		s.running = append(s.running, job{key: k, seq: v.seq, charge: charge, took: took, end: s.now + took})
		s.charged[k] += charge
		s.pending[k] += abs(took - charge)
	}
}

// check checks what holds after every instant.
func (s *sim) check() {
	if len(s.running) < s.slots && s.q.Len() > 0 {
		s.t.Fatalf("%s: a slot free and %d items waiting", s.name, s.q.Len())
	}
	n := len(s.keys)
	for k := range n {
		backlogged := s.q.Queued(k) > 0
		switch {
		case backlogged && s.back[k] == nil:
			s.back[k] = slices.Clone(s.charged)
			for j := range n {
				s.pair[k][j], s.pair[j][k] = span{}, span{}
			}
		case !backlogged:
			s.back[k] = nil
		}
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			if s.back[i] == nil || s.back[j] == nil {
				continue
			}
			wi, wj := float64(s.keys[i].weight), float64(s.keys[j].weight)
			d := float64(s.charged[i])/wi - float64(s.charged[j])/wj
			p := &s.pair[i][j]
			if !p.set {
				p.lo, p.hi, p.set = d, d, true
			}
			// The estimates' misses on the work in flight, E(i) and E(j),
			// at their most in the span: the corrections that may come.
			p.base = max(p.base, float64(s.pending[i])/wi+float64(s.pending[j])/wj)
			p.lo, p.hi = min(p.lo, d), max(p.hi, d)
			bound := float64(s.quant) + float64(s.long)/wi + float64(s.long)/wj
			dev := p.hi - p.lo
			s.worst = max(s.worst, dev/bound)
			if dev > bound {
				s.excess = max(s.excess, time.Duration(dev-bound))
			}
			if dev > bound+p.base {
				s.t.Fatalf("%s at %v: keys %d (weight %d) and %d (weight %d), backlogged together, apart by %v a unit of weight; bound %v, and E(i)/w(i) + E(j)/w(j) %v",
					s.name, s.now, i, s.keys[i].weight, j, s.keys[j].weight, time.Duration(dev), time.Duration(bound), time.Duration(p.base))
			}
		}
	}
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// TestBacklogedKeysKeepTheirWeightedShares runs random fleets of keys
// through the Queue (see sim) and checks the bound after every instant.
func TestBacklogedKeysKeepTheirWeightedShares(t *testing.T) {
	worst := 0.0
	var excess time.Duration
	for seed := range uint64(seeds) {
		s := newSim(t, seed)
		s.run(10 * time.Second)
		if t.Failed() {
			return
		}
		worst = max(worst, s.worst)
		excess = max(excess, s.excess)
	}
	t.Logf("worst deviation between two backlogged keys: %.2f of Q + L/w(i) + L/w(j); beyond it by at most %v (corrections)", worst, excess)
}
