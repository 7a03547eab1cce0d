package adaptive

import (
	"math/rand/v2"
	"time"

	"github.com/evolvekit/evolve/parallel"
)

// State is everything an adaptive agent knows between two messages: a
// parallel agent's state (the items waiting and when they came, the work in
// flight and when it started, the results held, the demand), the bounds of
// its limit, its controller, the random source the controller draws from,
// and how long the agent has been saturated since the last sample.
//
// A State is a value. [Evolve] never changes what the State it is given
// holds: the parallel part is itself such a value, the random source is a
// PCG copied by value, and controllers are values. So an earlier State can
// be kept, read or evolved again. A new State costs what a new
// parallel.State does, O(1) time per item whatever the limit, plus the
// controller's Observe. Two States evolved from one share memory, so they
// must not be used on two goroutines at once. The zero State is not usable; build one with
// [NewState].
type State[In, Out any] struct {
	p        parallel.State[In, Out]
	min, max int
	ctl      Controller
	rng      rand.PCG

	last   time.Time     // the At of the last message that counted
	since  time.Time     // the At of the last sample
	busy   time.Duration // saturated time since the last sample
	ticked bool          // whether last and since are set
}

// Owned returns s as a State that [Evolve] updates in place where it
// would otherwise keep a version of what it changed, as
// parallel.State.Owned does: for a driver that keeps nothing but the
// newest State, as the runtime does. s, and every State evolved from it
// but the newest, are no longer to be used.
func (s State[In, Out]) Owned() State[In, Out] {
	s.p = s.p.Owned()
	return s
}

// NewState returns the initial State for cfg, or an error naming the first
// setting of cfg that is out of range. It holds no demand: the runtime's
// first agent.Pull gives it some, and until then it starts nothing.
func NewState[In, Out any](cfg Config) (State[In, Out], error) {
	if err := cfg.validate(); err != nil {
		return State[In, Out]{}, err
	}
	p, err := parallel.NewState[In, Out](parallel.Config{
		Limit: cfg.initial(), Queue: cfg.queue(), Unordered: cfg.Unordered,
		MaxBatch: 1, CancelOnError: cfg.CancelOnError, Retry: cfg.Retry,
		Key: cfg.Key, Weights: cfg.Weights, Quantum: cfg.Quantum, KeyQueue: cfg.KeyQueue,
	})
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

// current returns the limit in force.
func (s State[In, Out]) current() int { return s.p.Status().Limit }

// saturated reports whether items wait while the limit is in flight. In a
// chain behind a rate stage, the items wait there, where the agent does
// not see them: it takes them only as places free, so the limit in flight
// is as close as it gets.
func (s State[In, Out]) saturated() bool {
	st := s.p.Status()
	return (st.Queued > 0 || st.Paced) && st.Batches >= st.Limit
}

// account counts the time since the last message as busy if the agent was
// saturated all along, and moves the clock to at.
func (s *State[In, Out]) account(at time.Time) {
	if !s.ticked {
		s.last, s.since, s.ticked = at, at, true
		return
	}
	if !at.After(s.last) {
		return
	}
	if s.saturated() {
		s.busy += at.Sub(s.last)
	}
	s.last = at
}
