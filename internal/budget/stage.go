package budget

import "time"

// DefaultPeriod is how often the drivers of a budget read the stages'
// statuses and share the workers again, unless told otherwise.
const DefaultPeriod = 50 * time.Millisecond

// Reading is what a stage's status tells a budget at one instant.
type Reading struct {
	At time.Time
	// Queued counts the items waiting to start, Busy the workers at work
	// (the batches in flight), Done the items whose work has ended so far,
	// and Limit is the stage's limit.
	Queued, Busy, Done, Limit int
}

// Stage is what a budget keeps of one stage from one reading to the next:
// the last reading and a smoothed mean of the stage's service time, the
// time one worker spends on one item. It is a value: Observe returns a new
// Stage. The zero Stage has read nothing.
type Stage struct {
	last    Reading
	read    bool
	service Mean
}

// Observe returns s with the stage's next reading r. It estimates the
// service time since the last reading by Little's law: the workers busy on
// average (the mean of the two readings' Busy) times the time between
// them, divided by the items done in it. When no item was done but workers
// were busy, that busy time is a lower bound of the service time, and
// raises the mean if it is above it. A reading no later than the last one
// only replaces it.
func (s Stage) Observe(r Reading) Stage {
	prev, had := s.last, s.read
	s.last, s.read = r, true
	dt := r.At.Sub(prev.At)
	if !had || dt <= 0 {
		return s
	}
	busy := time.Duration(float64(dt) * float64(prev.Busy+r.Busy) / 2)
	switch done := r.Done - prev.Done; {
	case done > 0:
		s.service = s.service.Observe(busy / time.Duration(done))
	case busy > 0:
		s.service = s.service.AtLeast(busy)
	}
	return s
}

// Service returns the smoothed service time, and false before the first
// estimate.
func (s Stage) Service() (time.Duration, bool) { return s.service.Value() }

// Demand returns what the stage asks of the budget now: the items waiting
// at the last reading and the smoothed service time (0 before the first
// estimate; at least a nanosecond after it, so a stage whose items take no
// measurable time is known to be quick).
func (s Stage) Demand() Demand {
	d, ok := s.Service()
	if ok {
		d = max(d, 1)
	}
	return Demand{Queued: s.last.Queued, Service: d}
}
