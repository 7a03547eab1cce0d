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

// Sharing is a Capacity that serves an agent's work by processor sharing:
// the pieces of work in flight share the capacity, so that a piece's
// service time stretches while more run beside it and shrinks when they
// finish. Any other Capacity fixes each service time when the work starts,
// at the concurrency of that moment.
//
// A piece of work brings an amount of work when it starts: the service time
// the Capacity gives it alone (noise included), over the slowdown alone.
// While n pieces are in flight, each gets through its work at 1/Slowdown(at,
// n) of its base rate. So work that runs at one concurrency throughout takes
// what the Capacity's Service gives, and a piece that started alone slows
// down as others join it. A change of the capacity (a [Step] inside the
// Sharing) applies to the work in flight from its instant on.
//
// [Run] serves an agent's work by processor sharing when the agent's
// Capacity in [Config] is a Sharing; inside a Step, a Sharing is served as
// the Capacity it holds. The zero Sharing is not valid: Capacity is
// required. Each event of the work costs the run time in proportion to the
// pieces in flight.
type Sharing struct {
	// Capacity says how long work takes and how much concurrency slows it.
	// Required.
	Capacity Shareable
}

// Service returns the service time of work that runs at this concurrency
// throughout: the one its Capacity gives.
func (s Sharing) Service(r *rand.Rand, at time.Duration, concurrency int) time.Duration {
	return s.Capacity.Service(r, at, concurrency)
}

// validate reports a missing capacity or the first bad setting of it.
func (s Sharing) validate() error {
	if s.Capacity == nil {
		return invalid("processor sharing needs a capacity")
	}
	return verify(s.Capacity)
}

// rewake schedules the instant agent i's work under processor sharing
// next needs the runner, unless it is already scheduled: the next piece
// done or capacity change, or now, for pieces already done.
func (r *runner) rewake(i int) {
	w := r.agents[i].shared
	at, ok := w.next()
	if len(w.done) > 0 {
		at, ok = r.now, true
	}
	if ok == w.armed && at == w.wake {
		return
	}
	w.gen++
	w.armed, w.wake = ok, at
	if ok {
		r.schedule(at, event{kind: evShared, agent: i, gen: w.gen})
	}
}

// wake delivers the Done of each piece of agent i's work that processor
// sharing has finished by now, in the order they started, unless a later
// wake-up (of generation other than gen) has taken this one's place.
func (r *runner) wake(i int, gen uint64) {
	w := r.agents[i].shared
	if gen != w.gen {
		return
	}
	w.armed = false
	for _, id := range w.advance(r.now) {
		if r.violated != nil {
			return
		}
		r.done(i, id)
	}
	r.rewake(i)
}

// sharedWork is the work in flight of an agent whose capacity is a
// Sharing, and the wake-up the runner has scheduled for it.
type sharedWork struct {
	capa Shareable
	now  float64 // the instant the work in flight was brought up to, in ns
	jobs []share // in the order they started
	done []uint64

	armed bool          // a wake-up is scheduled
	wake  time.Duration // for when
	gen   uint64        // the generation of the last one scheduled
}

// share is one piece of work in flight.
type share struct {
	id   uint64
	left float64 // work left, in nanoseconds at the base rate
}

// start starts the piece of work id at instant at, drawing its amount of
// work from r. An instant before the last one w was moved to counts as
// that one.
func (w *sharedWork) start(r *rand.Rand, at time.Duration, id uint64) {
	w.moveTo(float64(at))
	work := float64(w.capa.Service(r, at, 1)) / w.capa.Slowdown(at, 1)
	w.jobs = append(w.jobs, share{id: id, left: max(work, 0)})
}

// next returns the instant, rounded up to the nanosecond, at which the next
// piece of work in flight finishes, or the capacity changes if that comes
// first; false when nothing is in flight.
func (w *sharedWork) next() (time.Duration, bool) {
	if len(w.jobs) == 0 {
		return 0, false
	}
	t, _ := w.horizon()
	return time.Duration(math.Ceil(t)), true
}

// advance moves the work in flight on to instant at and returns the IDs of
// the pieces that finished by then, those that finished at one instant in
// the order they started. It also returns those that finished by the
// instants start was called at since the last advance, first.
func (w *sharedWork) advance(at time.Duration) []uint64 {
	w.moveTo(float64(at))
	out := w.done
	w.done = nil
	return out
}

// moveTo moves the work in flight on to instant to, one stretch of
// constant concurrency and capacity at a time.
func (w *sharedWork) moveTo(to float64) {
	for w.now < to {
		if len(w.jobs) == 0 {
			w.now = to
			return
		}
		end, finish := w.horizon()
		finishing := end <= to && finish
		end = min(end, to)
		rate := 1 / w.capa.Slowdown(w.instant(), len(w.jobs))
		worked := (end - w.now) * rate
		least := math.Inf(1)
		for i := range w.jobs {
			w.jobs[i].left -= worked
			least = min(least, w.jobs[i].left)
		}
		w.now = end
		w.finish(least, finishing)
	}
}

// horizon returns the end of the current stretch: the instant the next
// piece finishes (and true), or the capacity changes, whichever comes
// first.
func (w *sharedWork) horizon() (float64, bool) {
	least := math.Inf(1)
	for _, j := range w.jobs {
		least = min(least, j.left)
	}
	t := w.now + least*w.capa.Slowdown(w.instant(), len(w.jobs))
	if c, ok := changeAfter(w.capa, w.instant()); ok && float64(c) < t {
		return float64(c), false
	}
	return t, true
}

// finish removes the pieces whose work is done: those within a rounding
// error of it, and, when the stretch ran to a piece's end, those with the
// least work left.
func (w *sharedWork) finish(least float64, finishing bool) {
	const eps = 1e-3 // nanoseconds of work
	kept := w.jobs[:0]
	for _, j := range w.jobs {
		if j.left <= eps || finishing && j.left <= least {
			w.done = append(w.done, j.id)
			continue
		}
		kept = append(kept, j)
	}
	clear(w.jobs[len(kept):])
	w.jobs = kept
}

// instant is the current instant, rounded down to the nanosecond.
func (w *sharedWork) instant() time.Duration { return time.Duration(math.Floor(w.now)) }

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
