package budget

import "time"

// Estimate is what a budget keeps of one stage from one reading to the
// next: the last reading and a smoothed mean of the stage's service time,
// the time one worker spends on one item. It is a value: Observe returns a
// new Estimate. The zero Estimate has read nothing.
type Estimate struct {
	last    Reading
	read    bool
	service Mean
}

// Observe returns e with the stage's next reading r. It estimates the
// service time since the last reading by Little's law: the workers busy on
// average (the mean of the two readings' Busy) times the time between
// them, divided by the items done in it. When no item was done but workers
// were busy, that busy time is a lower bound of the service time, and
// raises the mean if it is above it. A reading no later than the last one
// only replaces it.
func (e Estimate) Observe(r Reading) Estimate {
	prev, had := e.last, e.read
	e.last, e.read = r, true
	dt := r.At.Sub(prev.At)
	if !had || dt <= 0 {
		return e
	}
	busy := time.Duration(float64(dt) * float64(prev.Busy+r.Busy) / 2)
	switch done := r.Done - prev.Done; {
	case done > 0:
		e.service = e.service.Observe(busy / time.Duration(done))
	case busy > 0:
		e.service = e.service.AtLeast(busy)
	}
	return e
}

// Service returns the smoothed service time, and false before the first
// estimate.
func (e Estimate) Service() (time.Duration, bool) { return e.service.Value() }

// Demand returns what the stage asks of the budget now: the items waiting
// at the last reading and the smoothed service time (0 before the first
// estimate; at least a nanosecond after it, so a stage whose items take no
// measurable time is known to be quick).
func (e Estimate) Demand() Demand {
	d, ok := e.Service()
	if ok {
		d = max(d, 1)
	}
	return Demand{Queued: e.last.Queued, Service: d}
}
