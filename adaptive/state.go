package adaptive

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/evolvekit/evolve/internal/fifo"
	"github.com/evolvekit/evolve/parallel"
)

// State is everything an adaptive agent knows between two messages: a
// parallel agent's state (the items waiting, the work in flight, the
// results held, the demand), the bounds of its limit, its controller, the
// random source the controller draws from, and when each piece of work in
// flight started.
//
// A State is a value. [Evolve] never changes the State it is given, nor any
// memory that State can reach: the parallel part is itself such a value,
// the list of work in flight is copied when it changes, the random source
// is a PCG copied by value, and controllers are values. So an earlier State
// can be kept, compared or evolved again, and States are safe to share
// between goroutines. The zero State is not usable; build one with
// [NewState].
type State[In, Out any] struct {
	p        parallel.State[In, Out]
	min, max int
	ctl      Controller
	rng      rand.PCG

	arrived fifo.Queue[time.Time] // when each waiting item was accepted, oldest first
	flights []flight              // work in flight, by ID ascending

	last   time.Time     // the At of the last message that counted
	since  time.Time     // the At of the last sample
	busy   time.Duration // saturated time since the last sample
	ticked bool          // whether last and since are set
}

// flight is one piece of work in flight: when it started, how long its item
// had waited, and how many were in flight just after it started.
type flight struct {
	id      uint64
	at      time.Time
	wait    time.Duration
	started int
}

// NewState returns the initial State for cfg, or an error naming the first
// setting of cfg that is out of range. It holds no demand: the runtime's
// first agent.Pull gives it some, and until then it starts nothing.
func NewState[In, Out any](cfg Config) (State[In, Out], error) {
	if err := cfg.validate(); err != nil {
		return State[In, Out]{}, err
	}
	p, err := parallel.NewState[In, Out](parallel.Config{Limit: cfg.initial(), Queue: cfg.queue(), Unordered: cfg.Unordered, Run: 1})
	if err != nil {
		return State[In, Out]{}, invalid("%v", err)
	}
	lo, hi := cfg.bounds()
	return State[In, Out]{
		p:   p,
		min: lo,
		max: hi,
		ctl: cfg.controller(),
		rng: *rand.NewPCG(cfg.Seed, 0xada97),
	}, nil
}

// Limit returns the limit in force.
func (s State[In, Out]) Limit() int { return s.p.Status().Limit }

// find returns the index of the work in flight with this ID.
func (s State[In, Out]) find(id uint64) (int, bool) {
	return slices.BinarySearchFunc(s.flights, id, func(f flight, id uint64) int {
		switch {
		case f.id < id:
			return -1
		case f.id > id:
			return 1
		}
		return 0
	})
}

// saturated reports whether items wait while the limit is in flight.
func (s State[In, Out]) saturated() bool {
	st := s.p.Status()
	return st.Queued > 0 && st.InFlight >= st.Limit
}

// account counts the time since the last message as busy if the agent was
// saturated all along, and moves the clock to at.
func (s State[In, Out]) account(at time.Time) State[In, Out] {
	if !s.ticked {
		s.last, s.since, s.ticked = at, at, true
		return s
	}
	if !at.After(s.last) {
		return s
	}
	if s.saturated() {
		s.busy += at.Sub(s.last)
	}
	s.last = at
	return s
}
