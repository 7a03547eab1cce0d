package budget

import "time"

// Smoothing is how far a [Mean] moves towards each observation once it has
// seen 1/Smoothing of them; before that it is their plain mean.
const Smoothing = 0.25

// Mean is a smoothed mean of durations: the plain mean of the first four
// observations, then an exponentially weighted one that gives each new
// observation a weight of [Smoothing], so it follows a change within a few
// observations. It is a value: Observe returns a new Mean. The zero Mean
// holds no observation.
type Mean struct {
	v float64
	n int
}

// Observe returns m with d observed.
func (m Mean) Observe(d time.Duration) Mean {
	m.n++
	m.v += max(Smoothing, 1/float64(m.n)) * (float64(d) - m.v)
	return m
}

// AtLeast returns m with d observed if d is above the mean or m holds no
// observation, and m as it is otherwise: d is a lower bound of what a
// duration is.
func (m Mean) AtLeast(d time.Duration) Mean {
	if m.n > 0 && float64(d) <= m.v {
		return m
	}
	return m.Observe(d)
}

// Value returns the mean, rounded to the nanosecond, and false when m holds
// no observation.
func (m Mean) Value() (time.Duration, bool) {
	return time.Duration(m.v + 0.5), m.n > 0
}
