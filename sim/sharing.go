package sim

import (
	"math"
	"math/rand/v2"
	"time"
)

// Shareable is a Capacity that processor sharing can serve (see [Sharing]):
// besides the service time of work that runs at one concurrency throughout,
// it says how much each concurrency slows every piece of work down.
// [Curve], [Gradual], and a [Step] between Shareable capacities are
// Shareable.
type Shareable interface {
	Capacity
	// Slowdown returns how many times longer than its base time work takes
	// with concurrency pieces in flight at instant at (1 up to a Curve's
	// knee). It must draw no randomness.
	Slowdown(at time.Duration, concurrency int) float64
}

// Sharing serves work by processor sharing: the pieces of work in flight
// share the capacity, so that a piece's service time stretches while more
// run beside it and shrinks when they finish. [Run] instead fixes each
// service time when the work starts, at the concurrency of that moment.
//
// A piece of work brings an amount of work when it starts: the service time
// the Capacity gives it alone (noise included), over the slowdown alone.
// While n pieces are in flight, each gets through its work at 1/Slowdown(at,
// n) of its base rate. So work that runs at one concurrency throughout takes
// what the Capacity's Service gives, and a piece that started alone slows
// down as others join it. A change of the capacity (a [Step]) applies to the
// work in flight from its instant on.
//
// Sharing is driven by its caller, a harness around an agent's evolve for
// instance: Start at each start, Next for the instant to wake up at, and
// Advance to it. Its zero value needs only Capacity set. It is not safe for
// concurrent use, and each call costs time in proportion to the pieces in
// flight.
type Sharing struct {
	// Capacity says how long work takes and how much concurrency slows it.
	// Required.
	Capacity Shareable

	now  float64 // the instant the work in flight was brought up to, in ns
	jobs []share // in the order they started
	done []uint64
}

// share is one piece of work in flight.
type share struct {
	id   uint64
	left float64 // work left, in nanoseconds at the base rate
}

// Len returns the number of pieces of work in flight.
func (s *Sharing) Len() int { return len(s.jobs) }

// Start starts the piece of work id at instant at, drawing its amount of
// work from r. An instant before the last one Sharing was moved to counts
// as that one.
func (s *Sharing) Start(r *rand.Rand, at time.Duration, id uint64) {
	s.advance(float64(at))
	work := float64(s.Capacity.Service(r, at, 1)) / s.Capacity.Slowdown(at, 1)
	s.jobs = append(s.jobs, share{id: id, left: max(work, 0)})
}

// Next returns the instant, rounded up to the nanosecond, at which the next
// piece of work in flight finishes, or the capacity changes if that comes
// first; false when nothing is in flight.
func (s *Sharing) Next() (time.Duration, bool) {
	if len(s.jobs) == 0 {
		return 0, false
	}
	t, _ := s.horizon()
	return time.Duration(math.Ceil(t)), true
}

// Advance moves the work in flight on to instant at and returns the IDs of
// the pieces that finished by then, those that finished at one instant in
// the order they started. It also returns those that finished by the
// instants Start was called at since the last Advance, first.
func (s *Sharing) Advance(at time.Duration) []uint64 {
	s.advance(float64(at))
	out := s.done
	s.done = nil
	return out
}

// advance moves the work in flight on to instant to, one stretch of
// constant concurrency and capacity at a time.
func (s *Sharing) advance(to float64) {
	for s.now < to {
		if len(s.jobs) == 0 {
			s.now = to
			return
		}
		end, finish := s.horizon()
		finishing := end <= to && finish
		end = min(end, to)
		rate := 1 / s.Capacity.Slowdown(s.instant(), len(s.jobs))
		step := (end - s.now) * rate
		least := math.Inf(1)
		for i := range s.jobs {
			s.jobs[i].left -= step
			least = min(least, s.jobs[i].left)
		}
		s.now = end
		s.finish(least, finishing)
	}
}

// horizon returns the end of the current stretch: the instant the next
// piece finishes (and true), or the capacity changes, whichever comes
// first.
func (s *Sharing) horizon() (float64, bool) {
	least := math.Inf(1)
	for _, j := range s.jobs {
		least = min(least, j.left)
	}
	t := s.now + least*s.Capacity.Slowdown(s.instant(), len(s.jobs))
	if c, ok := changeAfter(s.Capacity, s.instant()); ok && float64(c) < t {
		return float64(c), false
	}
	return t, true
}

// finish removes the pieces whose work is done: those within a rounding
// error of it, and, when the stretch ran to a piece's end, those with the
// least work left.
func (s *Sharing) finish(least float64, finishing bool) {
	const eps = 1e-3 // nanoseconds of work
	kept := s.jobs[:0]
	for _, j := range s.jobs {
		if j.left <= eps || finishing && j.left <= least {
			s.done = append(s.done, j.id)
			continue
		}
		kept = append(kept, j)
	}
	clear(s.jobs[len(kept):])
	s.jobs = kept
}

// instant is the current instant, rounded down to the nanosecond.
func (s *Sharing) instant() time.Duration { return time.Duration(math.Floor(s.now)) }

// changeAfter returns the first instant after at at which c changes, for
// the capacities of this package that change ([Step]).
func changeAfter(c Capacity, at time.Duration) (time.Duration, bool) {
	if ch, ok := c.(interface {
		change(time.Duration) (time.Duration, bool)
	}); ok {
		return ch.change(at)
	}
	return 0, false
}
