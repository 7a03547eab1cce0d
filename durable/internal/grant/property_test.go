package grant

import (
	"container/heap"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// The model: processes that share one limit through a key-value entry,
// in real time, with the faults a fleet meets. Each process has a
// monotonic clock of its own, which runs up to drift fast or slow; its
// requests reach the store after a latency and are answered after
// another, or are lost, or wait behind a partition; a process may be
// killed (SIGKILL: a new one may start in its place, with a new ID) or
// stopped (SIGSTOP: it does nothing, and spends nothing, until it goes on;
// its clock runs meanwhile). After every event the checks hold: the rates
// and bursts the live processes may spend at that instant, by their own
// clocks and leases, sum to at most the limit's.

const (
	simRate   = 100.0
	simBurst  = 10
	simPeriod = time.Second
	simMargin = 50 * time.Millisecond
	drift     = 1e-3 // within what the margin allows over a period, twice over
)

// event is something that happens at a real instant.
type simEvent struct {
	at  time.Duration // real time since the start
	seq int
	do  func()
}

type events []*simEvent

func (e events) Len() int { return len(e) }
func (e events) Less(i, j int) bool {
	if e[i].at != e[j].at {
		return e[i].at < e[j].at
	}
	return e[i].seq < e[j].seq
}
func (e events) Swap(i, j int) { e[i], e[j] = e[j], e[i] }
func (e *events) Push(x any)   { *e = append(*e, x.(*simEvent)) }
func (e *events) Pop() any {
	old := *e
	x := old[len(old)-1]
	*e = old[:len(old)-1]
	return x
}

// proc is one process of the model.
type proc struct {
	id          uint64
	k           *Keeper
	rate        float64 // its clock's rate against real time
	offset      time.Duration
	dead        bool
	stoppedTill time.Duration // it runs nothing before this real instant
	cutTill     time.Duration // its requests are lost before this real instant
	armSeq      int           // the latest Arm's, so that a replaced one does nothing
	writes      int
}

// world is the model.
type world struct {
	t       *testing.T
	r       *rand.Rand
	now     time.Duration
	queue   events
	seq     int
	procs   []*proc
	nextID  uint64
	table   []byte // the store's value; nil for none
	rev     uint64
	checks  int
	maxRate float64
	calm    bool // no message is lost or late any more
}

// local returns p's clock at real instant t.
func (p *proc) local(t time.Duration) time.Time {
	return time.Unix(0, 0).Add(p.offset + time.Duration(float64(t)*p.rate))
}

// at runs do at real instant t.
func (w *world) at(t time.Duration, do func()) {
	w.seq++
	heap.Push(&w.queue, &simEvent{at: t, seq: w.seq, do: do})
}

// start starts a new process with demand.
func (w *world) start(demand float64) *proc {
	w.nextID++
	p := &proc{id: w.nextID, rate: 1 + drift*(2*w.r.Float64()-1), offset: time.Duration(w.r.Int64N(int64(time.Hour)))}
	p.k = NewKeeper(Config{ID: p.id, Rate: simRate, Burst: simBurst, Period: simPeriod, Margin: simMargin})
	w.procs = append(w.procs, p)
	w.step(p, Use{Demand: demand})
	return p
}

// step hands p event e now, if it runs, and performs what its Keeper asks.
func (w *world) step(p *proc, e Event) {
	if p.dead {
		return
	}
	if w.now < p.stoppedTill {
		// A stopped process takes the event once it goes on.
		w.at(p.stoppedTill, func() { w.step(p, e) })
		return
	}
	for _, a := range p.k.Step(p.local(w.now), e) {
		w.perform(p, a)
	}
	w.check()
}

// latency returns how long a message takes: mostly a few milliseconds,
// now and then a long while.
func (w *world) latency() time.Duration {
	if !w.calm && w.r.IntN(20) == 0 {
		return time.Duration(w.r.Int64N(int64(2 * simPeriod)))
	}
	return time.Duration(w.r.Int64N(int64(5 * time.Millisecond)))
}

// lost reports whether a message of p is lost now.
func (w *world) lost(p *proc) bool { return !w.calm && (w.now < p.cutTill || w.r.IntN(50) == 0) }

// perform does what p's Keeper asked.
func (w *world) perform(p *proc, a Action) {
	switch a := a.(type) {
	case Get:
		if w.lost(p) {
			w.at(w.now+simPeriod/4, func() { w.step(p, Read{Err: errors.New("timeout")}) })
			return
		}
		w.at(w.now+w.latency(), func() {
			var r Read
			if w.table != nil {
				t, err := Decode(w.table)
				if err != nil {
					w.t.Fatalf("the store holds a table past its limit: %v", err)
				}
				r = Read{Table: t, Rev: w.rev, Found: true}
			}
			w.at(w.now+w.latency(), func() { w.step(p, r) })
		})
	case Put:
		if w.lost(p) {
			w.at(w.now+simPeriod/4, func() { w.step(p, Wrote{Err: errors.New("timeout")}) })
			return
		}
		w.at(w.now+w.latency(), func() {
			ok := (a.Create && w.table == nil) || (!a.Create && w.table != nil && a.Rev == w.rev)
			if ok {
				if _, err := Decode(a.Table.Encode()); err != nil {
					w.t.Fatalf("process %d wrote a table past the limit: %v", p.id, err)
				}
				w.table, w.rev = a.Table.Encode(), w.rev+1
				p.writes++
			}
			answer := Wrote{Conflict: !ok}
			if w.lost(p) { // taken, or not, and the answer lost
				w.at(w.now+simPeriod/4, func() { w.step(p, Wrote{Err: errors.New("timeout")}) })
				return
			}
			w.at(w.now+w.latency(), func() { w.step(p, answer) })
		})
	case Arm:
		p.armSeq++
		seq := p.armSeq
		// The Arm is on p's clock: real time runs 1/rate of it.
		w.at(w.now+time.Duration(float64(a.Delay)/p.rate), func() {
			if p.armSeq == seq {
				w.step(p, Renew{})
			}
		})
	case Apply, Left:
	}
}

// spending returns what p may spend at the real instant now.
func (w *world) spending(p *proc) (float64, int) {
	if p.dead || w.now < p.stoppedTill {
		return 0, 0
	}
	l := p.k.Lease()
	if l.Rate == 0 || !p.local(w.now).Before(l.Until) {
		return 0, 0
	}
	return l.Rate, l.Burst
}

// check checks that the live processes spend within the limit now.
func (w *world) check() {
	w.t.Helper()
	var rate float64
	var burst int
	for _, p := range w.procs {
		r, b := w.spending(p)
		rate += r
		burst += b
	}
	w.checks++
	w.maxRate = max(w.maxRate, rate)
	if rate > simRate*(1+1e-9) || burst > simBurst {
		var who []string
		for _, p := range w.procs {
			r, b := w.spending(p)
			who = append(who, fmt.Sprintf("%d:%.2f/%d", p.id, r, b))
		}
		w.t.Fatalf("at %v the processes spend %.3f a second and a burst of %d, past the limit's %v and %d: %v",
			w.now, rate, burst, simRate, simBurst, who)
	}
}

// run runs the model until end.
func (w *world) run(end time.Duration) {
	for w.queue.Len() > 0 {
		if w.queue[0].at > end {
			return
		}
		e := heap.Pop(&w.queue).(*simEvent)
		w.now = e.at
		e.do()
	}
}

// alive returns the processes not killed.
func (w *world) alive() []*proc {
	var out []*proc
	for _, p := range w.procs {
		if !p.dead {
			out = append(out, p)
		}
	}
	return out
}

// TestRandomFleetsNeverSpendPastTheLimit runs fleets of two to six
// processes with random demands through random faults (lost and late
// messages, partitions of a process from the store, kills with a new
// process in the dead one's place, stops, a late joiner, leaves) for a
// minute of model time each, checking after every event that what the
// live processes may spend sums to at most the limit. Then the faults stop
// and, a few periods later, the processes that want more than the limit
// spend at least nine tenths of it together: shares follow demand.
func TestRandomFleetsNeverSpendPastTheLimit(t *testing.T) {
	for seed := range uint64(40) {
		w := &world{t: t, r: rand.New(rand.NewPCG(seed, 7))}
		n := 2 + w.r.IntN(5)
		for range n {
			w.start(simRate * (0.2 + w.r.Float64()))
		}
		const faulty = time.Minute
		for at := time.Duration(0); at < faulty; at += time.Duration(w.r.Int64N(int64(2 * simPeriod))) {
			w.at(at, func() { w.fault() })
		}
		w.run(faulty)
		// The faults stop: every live process goes on, reaches the store,
		// and wants more than the limit.
		w.start(simRate) // and one more joins
		for _, p := range w.alive() {
			p.cutTill, p.stoppedTill = 0, min(p.stoppedTill, w.now)
			w.step(p, Use{Demand: simRate})
			w.step(p, Renew{})
		}
		w.lossless()
		w.run(faulty + 6*simPeriod)
		var rate float64
		for _, p := range w.alive() {
			if p.k.leaving {
				continue
			}
			r, _ := w.spending(p)
			rate += r
		}
		if rate < 0.9*simRate {
			t.Errorf("seed %d: %d processes that want more than the limit spend %.1f of %v a second together, six periods after the faults stopped", seed, len(w.alive()), rate, simRate)
		}
		if w.checks < 100 {
			t.Errorf("seed %d: only %d checks", seed, w.checks)
		}
	}
}

// fault does one random thing to the fleet.
func (w *world) fault() {
	alive := w.alive()
	if len(alive) == 0 {
		w.start(simRate)
		return
	}
	p := alive[w.r.IntN(len(alive))]
	switch w.r.IntN(7) {
	case 0: // a partition from the store
		p.cutTill = w.now + time.Duration(w.r.Int64N(int64(3*simPeriod)))
	case 1: // SIGSTOP, then SIGCONT
		p.stoppedTill = w.now + time.Duration(w.r.Int64N(int64(4*simPeriod)))
	case 2: // SIGKILL, and another in its place
		p.dead = true
		w.start(simRate * w.r.Float64())
	case 3: // a late joiner
		if len(alive) < 6 {
			w.start(simRate * w.r.Float64())
		}
	case 4: // a process leaves
		w.step(p, Leave{})
		w.at(w.now+3*simPeriod, func() { p.dead = true })
	default: // demand changes
		w.step(p, Use{Demand: simRate * 1.5 * w.r.Float64()})
	}
}

// lossless makes every later message arrive within a few milliseconds.
func (w *world) lossless() { w.calm = true }
