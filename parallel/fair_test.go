package parallel_test

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/parallel"
)

// job is an item of a fleet of keys: its key, its place among its key's
// items, and how long its work takes.
type job struct {
	key  string
	n    int
	work time.Duration
}

// client is one key of a fleet: its weight, how long its items take, and
// when its items come: Size items every Every, from From to Until.
type client struct {
	key          string
	weight       int
	work         time.Duration
	size         int
	every        time.Duration
	from, until  time.Duration
	posted, next int
}

// fleet drives a keyed parallel agent in virtual time: clients post, work
// takes its time, and after every step the fair shares are measured
// against the bound.
type fleet struct {
	t          *testing.T
	s          parallel.State[job, string]
	quantum    time.Duration
	limit      int
	maxBatch   int
	clients    []*client
	now        time.Time
	keyFlights keyFlights
	queued     map[string]int           // posted, not started
	work       map[string]time.Duration // the work started, per key
	emitted    map[string]int           // results emitted, per key: the next n expected when ordered
	ordered    bool
	longest    time.Duration
	// known holds the keys whose items' time the agent has measured (one
	// has finished since the key last had nothing queued or in flight),
	// guessed counts each key's items that started before, on a guess,
	// since then, and flying each key's items in flight.
	known           map[string]bool
	guessed, flying map[string]int

	// base holds, for each pair of keys both backlogged since, what each
	// had started when they both became backlogged.
	base  map[[2]string][2]time.Duration
	worst float64              // the worst deviation over the bound's Q + L/w(i) + L/w(j)
	alone int                  // steps after which a lone backlogged key had every place
	total int                  // results emitted
	last  map[string]time.Time // when each key's last result came out
}

// keyFlight is a batch in flight in virtual time.
type keyFlight struct {
	id    uint64
	items []job
	end   time.Time
	took  time.Duration
}

type keyFlights []keyFlight

func (f keyFlights) Len() int           { return len(f) }
func (f keyFlights) Less(i, j int) bool { return f[i].end.Before(f[j].end) }
func (f keyFlights) Swap(i, j int)      { f[i], f[j] = f[j], f[i] }
func (f *keyFlights) Push(x any)        { *f = append(*f, x.(keyFlight)) }
func (f *keyFlights) Pop() any {
	old := *f
	x := old[len(old)-1]
	*f = old[:len(old)-1]
	return x
}

func newFleet(t *testing.T, limit, maxBatch int, ordered bool, quantum time.Duration, clients []*client) *fleet {
	weights := map[string]int{}
	for _, c := range clients {
		weights[c.key] = c.weight
	}
	s, err := parallel.NewState[job, string](parallel.Config{
		Limit: limit, MaxBatch: maxBatch, Unordered: !ordered, Quantum: quantum,
		Key: func(j job) string { return j.key }, Weights: weights,
	})
	if err != nil {
		t.Fatal(err)
	}
	f := &fleet{t: t, s: s.Owned(), quantum: quantum, limit: limit, maxBatch: maxBatch, clients: clients, now: time.Unix(0, 0),
		queued: map[string]int{}, work: map[string]time.Duration{}, emitted: map[string]int{},
		ordered: ordered, base: map[[2]string][2]time.Duration{},
		last: map[string]time.Time{}, known: map[string]bool{}, guessed: map[string]int{}, flying: map[string]int{}}
	for _, c := range clients {
		f.longest = max(f.longest, c.work)
	}
	f.step(agent.Pull{N: agent.Unbounded, At: f.now})
	return f
}

// run posts and works until every client has posted all it will and
// every item has come out.
func (f *fleet) run(end time.Duration) {
	start := f.now
	for range 1_000_000 {
		next, c := f.nextPost()
		switch {
		case c != nil && (f.keyFlights.Len() == 0 || !f.keyFlights[0].end.Before(next)):
			f.now = next
			items := make([]job, c.size)
			for i := range items {
				items[i] = job{key: c.key, n: c.posted + i, work: c.work}
			}
			c.posted += c.size
			c.next++
			f.queued[c.key] += c.size
			f.step(agent.Input[job]{Items: items, At: f.now})
		case f.keyFlights.Len() > 0:
			fl := heap.Pop(&f.keyFlights).(keyFlight)
			f.now = fl.end
			f.landed(fl)
			rs := make([]parallel.Result[string], len(fl.items))
			for i, j := range fl.items {
				rs[i] = parallel.Result[string]{Seq: fl.id + uint64(i), Value: fmt.Sprintf("%s/%d", j.key, j.n)}
			}
			f.step(agent.Done[[]parallel.Result[string]]{ID: fl.id, Result: rs, At: f.now, Took: fl.took})
		default:
			f.step(agent.Close{At: f.now})
			if f.now.Sub(start) > end+time.Hour {
				f.t.Fatalf("the run took %v of virtual time", f.now.Sub(start))
			}
			return
		}
		if f.t.Failed() {
			return
		}
	}
	f.t.Fatal("the run did not end")
}

// nextPost returns the instant of the next post and its client, if any.
func (f *fleet) nextPost() (time.Time, *client) {
	var at time.Time
	var who *client
	for _, c := range f.clients {
		d := c.from + time.Duration(c.next)*c.every
		if d > c.until {
			continue
		}
		t := time.Unix(0, 0).Add(d)
		if who == nil || t.Before(at) {
			at, who = t, c
		}
	}
	return at, who
}

// step hands the agent m and performs its effects, then checks.
func (f *fleet) step(m agent.Msg) {
	before := f.backlogged()
	fx := f.s.Step(m, nil)
	for _, e := range fx {
		switch e := e.(type) {
		case agent.Start[[]job]:
			var took time.Duration
			for _, j := range e.Work {
				took += j.work
				f.queued[j.key]--
				f.work[j.key] += j.work
				f.flying[j.key]++
				if !f.known[j.key] {
					f.guessed[j.key]++
				}
			}
			heap.Push(&f.keyFlights, keyFlight{id: e.ID, items: e.Work, end: f.now.Add(took), took: took})
		case agent.Emit[parallel.Result[string]]:
			for _, r := range e.Values {
				var key string
				var n int
				if _, err := fmt.Sscanf(r.Value, "%1s/%d", &key, &n); err != nil {
					f.t.Fatalf("result %q: %v", r.Value, err)
				}
				if f.ordered && n != f.emitted[key] {
					f.t.Fatalf("key %s: result %d came out after %d others of its key", key, n, f.emitted[key])
				}
				f.emitted[key]++
				f.total++
				f.last[key] = f.now
			}
		}
	}
	f.check(before)
}

// landed notes that the batch fl finished: its keys' time is measured,
// and a key with nothing queued or in flight is forgotten, as the agent
// forgets it.
func (f *fleet) landed(fl keyFlight) {
	for _, j := range fl.items {
		f.flying[j.key]--
		f.known[j.key] = true
	}
	for _, j := range fl.items {
		if f.queued[j.key] == 0 && f.flying[j.key] == 0 {
			delete(f.known, j.key)
			f.guessed[j.key] = 0
		}
	}
}

// backlogged returns the keys with items queued.
func (f *fleet) backlogged() map[string]bool {
	b := map[string]bool{}
	for k, n := range f.queued {
		if n > 0 {
			b[k] = true
		}
	}
	return b
}

// check measures the shares of each pair of keys backlogged through the
// step, and that the agent keeps every place busy while items wait.
func (f *fleet) check(before map[string]bool) {
	after := f.backlogged()
	// Unordered and one item a batch, the agent keeps every place busy
	// while items wait (in order, held results may stop it; in batches, a
	// batch may take what two places could).
	if len(after) > 0 && !f.ordered && f.maxBatch == 1 && f.s.Status().Batches < f.limit {
		f.t.Fatalf("%d items of %d keys wait with %d of %d places busy", f.s.Status().Queued, len(after), f.s.Status().Batches, f.limit)
	}
	if len(after) == 1 {
		f.alone++
	}
	for _, a := range f.clients {
		for _, b := range f.clients {
			if a.key >= b.key {
				continue
			}
			pair := [2]string{a.key, b.key}
			base, ok := f.base[pair]
			switch {
			case !after[a.key] || !after[b.key]:
				if ok && (!before[a.key] || !before[b.key]) {
					f.t.Fatalf("pair %v kept a base through a step it was not backlogged", pair)
				}
				delete(f.base, pair)
				continue
			case !ok:
				// Both backlogged from this step on: the interval starts
				// with what each had started before it.
				f.base[pair] = [2]time.Duration{f.work[a.key], f.work[b.key]}
				continue
			}
			sa := float64(f.work[a.key]-base[0]) / float64(a.weight)
			sb := float64(f.work[b.key]-base[1]) / float64(b.weight)
			dev := sa - sb
			if dev < 0 {
				dev = -dev
			}
			L := float64(f.longest)
			terms := float64(f.quantum) + L/float64(a.weight) + L/float64(b.weight)
			// The bound, with what the estimates can miss by, E(i) and
			// E(j): the items of a key started before any of its work was
			// timed (since the key last had nothing queued or in flight)
			// were charged a guess, which missed by at most the longest
			// item or a quantum, the first guess.
			miss := max(L, float64(f.quantum))
			bound := terms + float64(f.guessed[a.key])*miss/float64(a.weight) + float64(f.guessed[b.key])*miss/float64(b.weight)
			f.worst = max(f.worst, dev/terms)
			if dev > bound {
				f.t.Errorf("at %v keys %s (w %d) and %s (w %d), both backlogged: work started per weight %v and %v, %v apart, over the bound %v",
					f.now.Sub(time.Unix(0, 0)), a.key, a.weight, b.key, b.weight, time.Duration(sa), time.Duration(sb), time.Duration(dev), time.Duration(bound))
			}
		}
	}
}

// TestKeysShareTheWorkWithinTheBound runs random fleets of keys in virtual
// time: one key posting 100 times another, keys of slow and quick items,
// keys that come and go, weights 1:2:4, in batches and one at a time, in
// order and not. After every step, for each pair of keys both backlogged
// since some instant, the work started since then per weight is within
// the bound of package internal/fair: a quantum plus an item per weight,
// plus the first estimate's miss; every place is busy while items wait;
// each key's results come out in its order when ordered; and at the end
// every item came out once.
func TestKeysShareTheWorkWithinTheBound(t *testing.T) {
	fleets := 100
	if testing.Short() || raceOn {
		fleets = 20
	}
	worst, alone := 0.0, 0
	for seed := range uint64(fleets) {
		r := rand.New(rand.NewPCG(seed, 0xfa1e))
		works := []time.Duration{200 * time.Microsecond, time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond}
		weights := []int{1, 2, 4}
		var clients []*client
		keys := 2 + r.IntN(4)
		for i := range keys {
			c := &client{
				key: string(rune('a' + i)), weight: weights[r.IntN(len(weights))],
				work: works[r.IntN(len(works))], size: 1, every: 10 * time.Millisecond,
				until: time.Second,
			}
			switch r.IntN(3) {
			case 0: // the flood: 100 times the others
				c.size = 100
			case 1: // comes late and goes early
				c.from = time.Duration(r.IntN(500)) * time.Millisecond
				c.until = c.from + time.Duration(100+r.IntN(400))*time.Millisecond
				c.size = 1 + r.IntN(20)
			}
			clients = append(clients, c)
		}
		limit := 1 + r.IntN(6)
		maxBatch := []int{1, 0}[r.IntN(2)]
		quantum := []time.Duration{time.Millisecond, 5 * time.Millisecond}[r.IntN(2)]
		f := newFleet(t, limit, maxBatch, r.IntN(2) == 0, quantum, clients)
		f.run(2 * time.Second)
		if t.Failed() {
			for _, c := range clients {
				t.Logf("seed %d limit %d batch %d quantum %v: %+v", seed, limit, maxBatch, quantum, *c)
			}
			return
		}
		posted := 0
		for _, c := range clients {
			posted += c.posted
			if f.emitted[c.key] != c.posted {
				t.Fatalf("seed %d: key %s posted %d, %d came out", seed, c.key, c.posted, f.emitted[c.key])
			}
		}
		if f.total != posted || !f.s.Status().Closed {
			t.Fatalf("seed %d: %d of %d came out", seed, f.total, posted)
		}
		worst = max(worst, f.worst)
		alone += f.alone
		if t.Failed() {
			return
		}
	}
	t.Logf("%d fleets: the worst deviation between two backlogged keys' work started per weight was %.2fx Q + L/w(i) + L/w(j); "+
		"%d steps had one key backlogged, and every place busy", fleets, worst, alone)
}

// TestAKeyAloneGetsTheWholeStage floods one key among idle others: every
// place works on it while it waits, at any weight.
func TestAKeyAloneGetsTheWholeStage(t *testing.T) {
	clients := []*client{
		{key: "a", weight: 1, work: time.Millisecond, size: 500, every: time.Second, until: 0},
		{key: "b", weight: 4, work: time.Millisecond, size: 1, every: time.Second, from: 2 * time.Second, until: 2 * time.Second},
	}
	f := newFleet(t, 4, 1, false, time.Millisecond, clients)
	f.run(3 * time.Second)
	if f.alone == 0 {
		t.Fatal("no step had key a alone")
	}
	if f.emitted["a"] != 500 || f.emitted["b"] != 1 {
		t.Fatalf("came out: %v", f.emitted)
	}
	// 500 items of 1 ms on 4 places take 125 ms: the whole stage was a's.
	if got := f.last["a"].Sub(time.Unix(0, 0)); got != 125*time.Millisecond {
		t.Fatalf("key a's last result came out after %v, not 125ms", got)
	}
}
