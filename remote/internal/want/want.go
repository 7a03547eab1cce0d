// Package want estimates how many workers a line of a remote stage's items
// (those of one tag, "" for the untagged) wants, from what the line
// measures: the master's book keeps a [Gauge] per line, tells it of each
// arrival and each task's time, and asks it for the line's want after
// each message. It reads no clock: time comes in its arguments.
//
// # The estimate
//
// With a drain time set, a line wants
//
//	x = (λ·S + queued·S/Drain) / c
//
// workers. λ is the rate the line's items arrive at, and S the time a task
// holds a slot, from its lease's start to its outcome's arrival: each an
// exponential moving average over time, with the time constant tau (so
// that its mean age is a Window sliding window's); c is the mean slots of
// the registered workers that take the line, or the last such mean while
// none is registered (1 before any). By Little's law λ·S slots are busy;
// queued·S/Drain more work through what is queued within Drain. While λ·S
// holds 90% of the slots of the workers registered for the line or more,
// the line's demand is not known (a backlog before the stage, behind a
// rate stage or a bounded input, waits unseen), and x is at least those
// workers and half as many again, so that a saturated stage grows until
// some of its slots are idle. A want that rose holds for Window (but for
// an idle line's 0): the workers it rose for take that long to show in λ,
// and would otherwise make it fall at once, as their slots, idle at first,
// end the saturation. The want follows x rounded up, with a dead band of
// slack: it rises to ceil(x - slack) when that is more, and falls to
// ceil(x + slack) when that is less, so that noise about a whole number
// does not make it flap. It is at least 1 while the line is busy (items
// queued, a retry among them, or leased, or an item came within Window),
// and 0 once the line is empty and idle: the input closed, or no item came
// for Window (λ then reads 0). Since time alone lowers λ, the book brings
// the wants up to date every Step while some line's λ is not 0.
package want

import (
	"math"
	"time"
)

const (
	// Window is the span the rates are measured over, and how long a
	// want that rose holds.
	Window = 5 * time.Second
	// Step is how often the wants are brought up to date while some
	// line's λ is not 0.
	Step = time.Second

	tau       = float64(Window/2) / float64(time.Second) // in seconds
	slack     = 0.1                                      // of a worker
	saturated = 0.9                                      // of a line's slots busy, by λ·S
)

// Gauge is what one line measures for its want, and its counts. Its zero
// value is a line that has seen nothing. It is changed in place and is
// not safe for concurrent use; a copy shares nothing with it.
type Gauge struct {
	rate     float64   // λ, items a second, as of at
	sum, n   float64   // the outcomes' times and count, weighed as rate is
	service  float64   // S, seconds: sum / n, the last known; 0 before any
	at, last time.Time // when the sums were last brought to date; the last arrival
	mean     float64   // c, the last mean known; 0 before any
	rose     time.Time // when Want last rose

	Slots    int // of the registered workers that take the line
	Leased   int // items of the line leased
	Retrying int // items of the line queued again after a failed attempt
	Want     int // the workers the line wants, as last said
}

// decay brings the sums to instant at: an instant that goes back changes
// nothing.
func (g *Gauge) decay(at time.Time) {
	if d := at.Sub(g.at); d > 0 {
		k := math.Exp(-d.Seconds() / tau)
		g.rate, g.sum, g.n, g.at = g.rate*k, g.sum*k, g.n*k, at
	}
}

// Arrive counts an item that arrived at instant at.
func (g *Gauge) Arrive(at time.Time) {
	g.decay(at)
	g.rate += 1 / tau
	g.last = at
}

// Serve counts a task that held a slot for d, until instant at.
func (g *Gauge) Serve(d time.Duration, at time.Time) {
	g.decay(at)
	g.sum += max(d, 0).Seconds()
	g.n++
	g.service = g.sum / g.n
}

// Rate returns λ, items a second, as last brought to date.
func (g *Gauge) Rate() float64 { return g.rate }

// Service returns S, the time a task holds a slot, 0 before any is known.
func (g *Gauge) Service() time.Duration { return time.Duration(g.service * float64(time.Second)) }

// Age brings λ to instant at, and to 0 once the input is closed or no
// item came for Window. It reports whether λ is not 0.
func (g *Gauge) Age(at time.Time, closed bool) bool {
	g.decay(at)
	if closed || at.Sub(g.last) >= Window {
		g.rate = 0
	}
	return g.rate > 0
}

// Line is what the book knows of a line besides its gauge.
type Line struct {
	Registered int           // the registered workers that may take its items
	Queued     int           // its items queued
	Drain      time.Duration // the time its queue should be worked through in
	Closed     bool          // the input is closed
}

// Update sets Want to what the line l describes wants at instant at, λ
// brought to date (see Age), and reports whether it changed.
func (g *Gauge) Update(l Line, at time.Time) bool {
	n := g.wanted(l, at)
	if n == g.Want {
		return false
	}
	if n > g.Want {
		g.rose = at
	}
	g.Want = n
	return true
}

// wanted returns the workers the line l describes wants at instant at.
func (g *Gauge) wanted(l Line, at time.Time) int {
	if l.Registered > 0 {
		g.mean = float64(g.Slots) / float64(l.Registered)
	}
	x := min((g.rate*g.service+float64(l.Queued)*g.service/l.Drain.Seconds())/max(g.mean, 1), 1e9)
	if l.Registered > 0 && g.Slots > 0 && g.rate*g.service >= saturated*float64(g.Slots) {
		// Every slot busy: the items the line does not see (waiting
		// before the stage, which takes them only as slots free up,
		// behind a rate stage or a bounded input) may be many, so it
		// asks for half as many workers again.
		x = max(x, float64(l.Registered+(l.Registered+1)/2))
	}
	n := g.Want
	if up := int(math.Ceil(x - slack)); up > n {
		n = up
	} else if down := int(math.Ceil(x + slack)); down < n {
		n = down
	}
	if l.Queued+g.Leased == 0 && (l.Closed || at.Sub(g.last) >= Window) {
		return 0 // empty and idle
	}
	if n < g.Want && at.Sub(g.rose) < Window {
		n = g.Want // held: the workers it rose for have yet to show in λ
	}
	return max(n, 1)
}
