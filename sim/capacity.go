package sim

import (
	"math"
	"math/rand/v2"
	"time"
)

// Capacity is how long a piece of work takes: Service returns the service
// time of work started at virtual time at while concurrency pieces of work
// (itself included) are in flight. It may draw from r, the simulator's
// seeded source for service times, and must use no other randomness.
//
// [Curve] is the usual Capacity; [Gradual] has no sharp knee; [Step]
// changes either at an instant. Write your own to model something else.
// [Run] checks the settings of the Capacities of this package, and calls
// the Validate() error method of one of your own that has one.
type Capacity interface {
	Service(r *rand.Rand, at time.Duration, concurrency int) time.Duration
}

// Curve is a capacity curve: throughput grows linearly with concurrency up
// to Knee, and beyond it contention sets in.
//
// Up to Knee, work takes Base. Beyond it, with c in flight, it takes
//
//	Base × (c/Knee) × (1 + Contention × (c-Knee)/Knee)
//
// so total throughput (c divided by the service time) is flat past the knee
// when Contention is 0 and falls when it is positive: with Contention 0.5,
// twice the knee gives two thirds of the best throughput. Noise, if set,
// multiplies each service time by a random factor.
//
// The zero Curve is not valid: Base and Knee are required.
type Curve struct {
	// Base is the service time at or below the knee. Required, positive.
	Base time.Duration
	// Knee is the concurrency at which throughput peaks. Required, at least 1.
	Knee int
	// Contention is how fast throughput falls past the knee; 0 keeps it flat.
	// It must be a finite number, not negative.
	Contention float64
	// Noise makes service times random; its zero value adds none.
	Noise Noise
}

// Service returns the service time at this concurrency, with noise.
func (c Curve) Service(r *rand.Rand, _ time.Duration, concurrency int) time.Duration {
	d := float64(c.Base) * c.slowdown(concurrency) * c.Noise.factor(r)
	return time.Duration(math.Min(d, float64(math.MaxInt64/4)))
}

// Slowdown returns the service time at this concurrency in units of Base,
// without noise: 1 up to the knee, more beyond it. It makes a Curve a
// [Shareable] capacity, which [Sharing] can serve.
func (c Curve) Slowdown(_ time.Duration, concurrency int) float64 { return c.slowdown(concurrency) }

// slowdown is the service time at concurrency in units of Base, without
// noise: 1 up to the knee, more beyond it.
func (c Curve) slowdown(concurrency int) float64 {
	if concurrency <= c.Knee {
		return 1
	}
	over := float64(concurrency) / float64(c.Knee)
	return over * (1 + c.Contention*(over-1))
}

// throughput is the curve's throughput at a fixed concurrency, in pieces of
// work per second, without noise: concurrency / (Slowdown × Base).
func (c Curve) throughput(concurrency int) float64 {
	if concurrency < 1 {
		return 0
	}
	return float64(concurrency) / (c.slowdown(concurrency) * c.Base.Seconds())
}

// validate reports the first setting of c that is out of range.
func (c Curve) validate() error {
	switch {
	case c.Base <= 0:
		return invalid("base service time must be positive, got %v", c.Base)
	case c.Knee < 1:
		return invalid("knee must be at least 1, got %d", c.Knee)
	case !(c.Contention >= 0) || math.IsInf(c.Contention, 1):
		return invalid("contention must be a finite number, at least 0, got %v", c.Contention)
	}
	return c.Noise.validate()
}

// Noise multiplies service times by a random factor: a log-normal jitter
// around 1, and now and then a heavy-tailed (Pareto) slowdown. The zero
// Noise adds none.
type Noise struct {
	// Jitter is the log-normal sigma: 0.3 makes most service times land
	// within ±30% of the curve. The jitter's mean is 1. It must be between
	// 0 and 3.
	Jitter float64
	// Tail is the probability, between 0 and 1, that a piece of work is
	// slowed down by a Pareto-distributed factor of at least 1.
	Tail float64
	// Shape is the Pareto shape of the tail, a finite number, not negative;
	// smaller is heavier. 0 means 1.5 (finite mean, infinite variance).
	Shape float64
	// Cap bounds the tail factor: 0 means 50, otherwise it must be at
	// least 1.
	Cap float64
}

// factor draws one noise factor; it draws nothing when n adds no noise.
func (n Noise) factor(r *rand.Rand) float64 {
	f := 1.0
	if n.Jitter > 0 {
		f = math.Exp(n.Jitter*r.NormFloat64() - n.Jitter*n.Jitter/2)
	}
	if n.Tail > 0 && r.Float64() < n.Tail {
		f *= n.tail(r)
	}
	return f
}

// tail draws a Pareto factor of at least 1, capped.
func (n Noise) tail(r *rand.Rand) float64 {
	shape, limit := n.Shape, n.Cap
	if shape == 0 {
		shape = 1.5
	}
	if limit == 0 {
		limit = 50
	}
	return math.Min(math.Pow(1-r.Float64(), -1/shape), limit)
}

// validate reports the first setting of n that is out of range.
func (n Noise) validate() error {
	switch {
	case !(n.Jitter >= 0) || n.Jitter > 3:
		return invalid("jitter must be between 0 and 3, got %v", n.Jitter)
	case !(n.Tail >= 0) || n.Tail > 1:
		return invalid("tail must be a probability, got %v", n.Tail)
	case !(n.Shape >= 0) || math.IsInf(n.Shape, 1):
		return invalid("tail shape must be a finite number, at least 0, got %v", n.Shape)
	case n.Cap != 0 && !(n.Cap >= 1) || math.IsInf(n.Cap, 1):
		return invalid("tail cap must be at least 1, got %v", n.Cap)
	}
	return nil
}

// Step is a capacity that changes at an instant: work started before At
// follows Before, work started from At on follows After. Both are required.
type Step struct {
	At            time.Duration
	Before, After Capacity
}

// Service returns the service time under the capacity in force at at.
func (s Step) Service(r *rand.Rand, at time.Duration, concurrency int) time.Duration {
	if at < s.At {
		return s.Before.Service(r, at, concurrency)
	}
	return s.After.Service(r, at, concurrency)
}

// Slowdown returns the slowdown of the capacity in force at at; a side that
// is not [Shareable] slows nothing down.
func (s Step) Slowdown(at time.Duration, concurrency int) float64 {
	c := s.After
	if at < s.At {
		c = s.Before
	}
	if sh, ok := c.(Shareable); ok {
		return sh.Slowdown(at, concurrency)
	}
	return 1
}

// change returns the first instant after at at which the capacity changes.
func (s Step) change(at time.Duration) (time.Duration, bool) {
	if at < s.At {
		if t, ok := changeAfter(s.Before, at); ok && t < s.At {
			return t, true
		}
		return s.At, true
	}
	return changeAfter(s.After, at)
}

// validate reports a missing side or the first bad setting of either.
func (s Step) validate() error {
	if s.Before == nil || s.After == nil {
		return invalid("a capacity step needs a capacity before and after")
	}
	if err := verify(s.Before); err != nil {
		return err
	}
	return verify(s.After)
}

// Gradual is a capacity curve with no sharp knee: service time rises from
// the first piece of work on, and throughput peaks at Peak well after
// latency has started to rise. With c in flight work takes
//
//	Base × (1 + (c/Peak)^Power / (Power-1))
//
// so throughput (c divided by the service time) is highest at Peak, where
// work takes Power/(Power-1) times Base (1.5 times with the default Power
// of 3). At three quarters of Peak work already takes 1.21 times Base,
// while throughput is still 7% below its peak; at twice Peak throughput is
// 60% of the peak. Noise, if set, multiplies each service time by a random
// factor.
//
// The zero Gradual is not valid: Base and Peak are required.
type Gradual struct {
	// Base is the service time of work alone, near enough: at concurrency 1
	// it is Base × (1 + Peak^-Power / (Power-1)). Required, positive.
	Base time.Duration
	// Peak is the concurrency at which throughput peaks. Required, at
	// least 1.
	Peak int
	// Power is how sharply service time rises; 0 means 3, otherwise it
	// must be a finite number above 1.
	Power float64
	// Noise makes service times random; its zero value adds none.
	Noise Noise
}

// Service returns the service time at this concurrency, with noise.
func (g Gradual) Service(r *rand.Rand, at time.Duration, concurrency int) time.Duration {
	d := float64(g.Base) * g.Slowdown(at, concurrency) * g.Noise.factor(r)
	return time.Duration(math.Min(d, float64(math.MaxInt64/4)))
}

// Slowdown returns the service time at this concurrency in units of Base,
// without noise. It makes a Gradual a [Shareable] capacity.
func (g Gradual) Slowdown(_ time.Duration, concurrency int) float64 {
	p := g.power()
	return 1 + math.Pow(float64(max(concurrency, 0))/float64(g.Peak), p)/(p-1)
}

// throughput is the throughput at a fixed concurrency, in pieces of work
// per second, without noise: concurrency / (Slowdown × Base).
func (g Gradual) throughput(concurrency int) float64 {
	if concurrency < 1 {
		return 0
	}
	return float64(concurrency) / (g.Slowdown(0, concurrency) * g.Base.Seconds())
}

// power returns Power with its default filled in.
func (g Gradual) power() float64 {
	if g.Power == 0 {
		return 3
	}
	return g.Power
}

// validate reports the first setting of g that is out of range.
func (g Gradual) validate() error {
	switch {
	case g.Base <= 0:
		return invalid("base service time must be positive, got %v", g.Base)
	case g.Peak < 1:
		return invalid("peak must be at least 1, got %d", g.Peak)
	case g.Power != 0 && !(g.Power > 1) || math.IsInf(g.Power, 1):
		return invalid("power must be a finite number above 1, got %v", g.Power)
	}
	return g.Noise.validate()
}
