package sim

import (
	"math"
	"math/rand/v2"
	"time"
)

// Arrivals is how work arrives: Next returns how many items arrive at
// virtual time at, and how long until it should be asked again. It may draw
// from r, the simulator's seeded source for arrivals (kept apart from the
// one for service times, so every agent run with one seed sees the same
// arrivals), and must use no other randomness.
//
// Items that arrive while the agent's input queue is full wait outside it,
// in a backlog that has no bound, and are posted, oldest first, as the agent
// gives input slots back. [Run] checks the settings of the Arrivals of this
// package, and calls the Validate() error method of one of your own that has
// one.
type Arrivals interface {
	Next(r *rand.Rand, at time.Duration) (n int, wait time.Duration)
}

// Never is a wait long enough that the next arrival never comes.
const Never = time.Duration(math.MaxInt64 / 2)

// Flood is overload: at the start, more items arrive than any run can take,
// so the backlog never empties and the agent's input queue stays full.
type Flood struct{}

// Next returns a backlog that never runs out, once.
func (Flood) Next(*rand.Rand, time.Duration) (int, time.Duration) { return math.MaxInt32, Never }

// Steady is one item at a time at Rate items per second: evenly spaced, or
// with exponential gaps (a Poisson process) when Poisson is set. The zero
// Steady is not valid: Rate is required, a positive number.
type Steady struct {
	Rate    float64
	Poisson bool
}

// Next returns one item and the gap to the next.
func (s Steady) Next(r *rand.Rand, _ time.Duration) (int, time.Duration) {
	gap := 1 / s.Rate
	if s.Poisson {
		gap = r.ExpFloat64() / s.Rate
	}
	return 1, max(time.Duration(gap*float64(time.Second)), 1)
}

// validate reports a rate that is not positive.
func (s Steady) validate() error {
	if !(s.Rate > 0) || math.IsInf(s.Rate, 1) {
		return invalid("rate must be a positive number, got %v", s.Rate)
	}
	return nil
}

// Batches brings, every Every, a batch of 0 to Max items, each size as
// likely as any other. Every must be positive and Max not negative.
type Batches struct {
	Every time.Duration
	Max   int
}

// Next returns one batch and the interval.
func (b Batches) Next(r *rand.Rand, _ time.Duration) (int, time.Duration) {
	return r.IntN(b.Max + 1), b.Every
}

// validate reports an interval that is not positive or a negative Max.
func (b Batches) validate() error {
	if b.Every <= 0 {
		return invalid("batch interval must be positive, got %v", b.Every)
	}
	if b.Max < 0 {
		return invalid("batch size must not be negative, got %d", b.Max)
	}
	return nil
}

// Bursts brings Size items at once, every Every. Every must be positive and
// Size not negative.
type Bursts struct {
	Every time.Duration
	Size  int
}

// Next returns one burst and the interval.
func (b Bursts) Next(*rand.Rand, time.Duration) (int, time.Duration) { return b.Size, b.Every }

// validate reports an interval that is not positive or a negative Size.
func (b Bursts) validate() error {
	if b.Every <= 0 {
		return invalid("burst interval must be positive, got %v", b.Every)
	}
	if b.Size < 0 {
		return invalid("burst size must not be negative, got %d", b.Size)
	}
	return nil
}

// Spells interleaves busy and idle spells: for On, items arrive as Of says;
// then for Off, none do; and so on, starting busy. Of is required, On must
// be positive and Off not negative.
type Spells struct {
	Of      Arrivals
	On, Off time.Duration
}

// Next returns what Of brings during a busy spell, and nothing during an
// idle one, waking at the next busy spell.
func (s Spells) Next(r *rand.Rand, at time.Duration) (int, time.Duration) {
	cycle := s.On + s.Off
	phase := at % cycle
	if phase >= s.On {
		return 0, cycle - phase
	}
	n, wait := s.Of.Next(r, at)
	if phase+wait >= s.On {
		wait = cycle - phase
	}
	return n, wait
}

// validate reports a missing source or spells that are not positive.
func (s Spells) validate() error {
	if s.Of == nil {
		return invalid("spells need arrivals for their busy spells")
	}
	if s.On <= 0 || s.Off < 0 {
		return invalid("busy spells must be positive and idle ones not negative, got %v and %v", s.On, s.Off)
	}
	return verify(s.Of)
}

// Switch changes the arrivals at an instant: Before brings items until At,
// After from At on. Both are required.
type Switch struct {
	At            time.Duration
	Before, After Arrivals
}

// Next asks Before until At, never waiting past it, then After.
func (s Switch) Next(r *rand.Rand, at time.Duration) (int, time.Duration) {
	if at >= s.At {
		return s.After.Next(r, at)
	}
	n, wait := s.Before.Next(r, at)
	return n, min(wait, s.At-at)
}

// validate reports a missing side or the first bad setting of either.
func (s Switch) validate() error {
	if s.Before == nil || s.After == nil {
		return invalid("an arrivals switch needs arrivals before and after")
	}
	if err := verify(s.Before); err != nil {
		return err
	}
	return verify(s.After)
}

// arrivalsAt asks a, with r, for the items that arrive at instant now, and
// returns them and the instant of the next arrival; more is false when
// there is none before end.
func arrivalsAt(a Arrivals, r *rand.Rand, now, end time.Duration) (n int, next time.Duration, more bool) {
	n, wait := a.Next(r, now)
	next = now + max(wait, 1)
	return n, next, wait < Never && next < end
}
