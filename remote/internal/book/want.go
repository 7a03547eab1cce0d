package book

import (
	"math"
	"time"

	"github.com/evolvekit/evolve/agent"
)

// Scaling on the backlog: with Config.Drain set, the book says after each
// message how many workers it wants for each line (the items of one tag,
// "" for the untagged), from
//
//	x = (λ·S + queued·S/Drain) / c
//
// λ is the rate the line's items arrive at, and S the time a task holds a
// slot, from its lease's start (hold, start) to its outcome's arrival: each
// an exponential moving average over time, with the time constant tau (so
// that its mean age is a rateWindow sliding window's); c is the mean slots
// of the registered workers that take the line, or the last such mean
// while none is registered (1 before any). By Little's law λ·S slots are
// busy; queued·S/Drain more work through what is queued within Drain.
// While λ·S holds 90% of the slots of the workers registered for the line
// or more, the line's demand is not known (a backlog before the stage,
// behind a rate stage or a bounded input, waits unseen), and x is at least
// those workers and half as many again, so that a saturated stage grows
// until some of its slots are idle. A want that rose holds for
// rateWindow (but for an idle line's 0): the workers it rose for take
// that long to show in λ, and would otherwise make it fall at once, as
// their slots, idle at first, end the saturation. The
// want follows x rounded up, with a dead band of slack: it rises to
// ceil(x - slack) when that is more, and falls to ceil(x + slack) when that
// is less, so that noise about a whole number does not make it flap. It is
// at least 1 while the line is busy (items queued, a retry among them, or
// leased, or an item came within rateWindow), and 0 once the line is empty
// and idle: the input closed, or no item came for rateWindow (λ then reads
// 0). A change of a line's want asks for a Want. Since time alone lowers
// λ, a timer (wantTimer, every wantStep) brings the wants up to date while
// some line's λ is not 0.
const (
	rateWindow        = 5 * time.Second
	tau               = float64(rateWindow/2) / float64(time.Second) // in seconds
	slack             = 0.1                                          // of a worker
	saturated         = 0.9                                          // of a line's slots busy, by λ·S
	wantStep          = time.Second
	wantTimer  uint64 = 4
)

// gauge is what a line measures for its want, and its counts.
type gauge struct {
	rate     float64   // λ, items a second, as of at
	sum, n   float64   // the outcomes' times and count, weighed as rate is
	service  float64   // S, seconds: sum / n, the last known; 0 before any
	at, last time.Time // when the sums were last brought to date; the last arrival
	slots    int       // of the registered workers that take the line
	mean     float64   // c, the last mean known; 0 before any
	leased   int       // items of the line leased
	retrying int       // items of the line queued again after a failed attempt
	want     int
	rose     time.Time // when want last rose
}

// decay brings the sums to instant at: an instant that goes back changes
// nothing.
func (g *gauge) decay(at time.Time) {
	if d := at.Sub(g.at); d > 0 {
		k := math.Exp(-d.Seconds() / tau)
		g.rate, g.sum, g.n, g.at = g.rate*k, g.sum*k, g.n*k, at
	}
}

// arrive counts an item that arrived at instant at.
func (g *gauge) arrive(at time.Time) {
	g.decay(at)
	g.rate += 1 / tau
	g.last = at
}

// serve counts a task that held a slot for d, until instant at.
func (g *gauge) serve(d time.Duration, at time.Time) {
	g.decay(at)
	g.sum += max(d, 0).Seconds()
	g.n++
	g.service = g.sum / g.n
}

// seat adds sign times the slots of w to the lines it takes from.
func (b *Book[I, O, R]) seat(w *member, sign int) {
	for _, k := range w.lines {
		b.lines[k].gauge.slots += sign * w.slots
	}
}

// served measures, at instant at, the task of item at attempt whose
// outcome worker from sent back, if the item is leased to it under that
// attempt and its lease has started.
func (b *Book[I, O, R]) served(from WorkerID, item uint64, attempt int, at time.Time) {
	e := b.entry(item)
	if b.drain > 0 && e != nil && e.phase == phaseLeased && !e.waits && e.worker == from && e.attempt == attempt {
		b.lines[e.tag].gauge.serve(at.Sub(e.since), at)
	}
}

// wantFired notes that the want timer has fired if it was due by at.
func (b *Book[I, O, R]) wantFired(at time.Time) {
	if t := &b.wantTick; t.on && !t.due.After(at) {
		t.on = false
	}
}

// want brings every line's want up to date at instant at, keeps the want
// timer pending while some line's λ is not 0, and asks for a Want for each
// line whose want changed.
func (b *Book[I, O, R]) want(fx []agent.Effect, at time.Time) []agent.Effect {
	if b.drain <= 0 {
		return fx
	}
	moving := false
	for i := range b.lines {
		g := &b.lines[i].gauge
		g.decay(at)
		if b.closed || at.Sub(g.last) >= rateWindow {
			g.rate = 0
		}
		moving = moving || g.rate > 0
	}
	if t := &b.wantTick; moving && !t.on {
		t.on, t.due = true, at.Add(wantStep)
		fx = withEffect(fx, agent.Timer{Tag: wantTimer, Delay: wantStep})
	}
	for i := range b.lines {
		l := &b.lines[i]
		if n := b.wanted(i, at); n != l.gauge.want {
			if n > l.gauge.want {
				l.gauge.rose = at
			}
			l.gauge.want = n
			fx = withEffect(fx, agent.Send[Want]{Value: Want{Tag: l.tag, Workers: n}})
		}
	}
	return fx
}

// wanted returns the workers line i wants at instant at, its λ brought
// to date.
func (b *Book[I, O, R]) wanted(i int, at time.Time) int {
	l := &b.lines[i]
	g := &l.gauge
	if n := b.registered(i); n > 0 {
		g.mean = float64(g.slots) / float64(n)
	}
	queued := l.seqs.Len()
	x := min((g.rate*g.service+float64(queued)*g.service/b.drain.Seconds())/max(g.mean, 1), 1e9)
	if regs := b.registered(i); regs > 0 && g.slots > 0 && g.rate*g.service >= saturated*float64(g.slots) {
		// Every slot busy: the items the line does not see (waiting
		// before the stage, which takes them only as slots free up,
		// behind a rate stage or a bounded input) may be many, so it
		// asks for half as many workers again.
		x = max(x, float64(regs+(regs+1)/2))
	}
	n := g.want
	if up := int(math.Ceil(x - slack)); up > n {
		n = up
	} else if down := int(math.Ceil(x + slack)); down < n {
		n = down
	}
	if queued+g.leased == 0 && (b.closed || at.Sub(g.last) >= rateWindow) {
		return 0 // empty and idle
	}
	if n < g.want && at.Sub(g.rose) < rateWindow {
		n = g.want // held: the workers it rose for have yet to show in λ
	}
	return max(n, 1)
}

// figures returns what each line measures, as the Snapshot reports it;
// nil without Config.Drain.
func (b *Book[I, O, R]) figures() []Line {
	if b.drain <= 0 {
		return nil
	}
	out := make([]Line, len(b.lines))
	for i := range b.lines {
		l := &b.lines[i]
		g := &l.gauge
		out[i] = Line{Tag: l.tag, Want: g.want, Queued: l.seqs.Len(), Leased: g.leased, Retrying: g.retrying,
			Rate: g.rate, Service: time.Duration(g.service * float64(time.Second))}
	}
	return out
}
