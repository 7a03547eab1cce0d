package rate

import "math"

// Limit is the shape of the token bucket: the rate it refills at and the
// number of tokens it holds when full. It is the payload of the
// agent.Set[Limit] message that [SetLimit] sends.
//
// The zero Limit is not valid: both fields are required.
type Limit struct {
	// Rate is the refill rate in tokens (events of cost 1) per second:
	// positive and finite; fractions such as 0.5 are allowed.
	Rate float64
	// Burst is the capacity of the bucket: at least 1. It is also the largest
	// cost one item may have.
	Burst int
}

// check returns an [ErrConfig] naming the field of l that is out of range,
// or nil.
func (l Limit) check() error {
	switch {
	case math.IsInf(l.Rate, 1):
		return configError("rate must be finite, got %v", l.Rate)
	case !(l.Rate > 0):
		return configError("rate must be a positive number, got %v", l.Rate)
	case l.Burst < 1:
		return configError("burst must be at least 1, got %d", l.Burst)
	}
	return nil
}
