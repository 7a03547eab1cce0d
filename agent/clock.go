package agent

import "time"

// Clock is the runtime's source of time: it stamps every message and arms
// every timer. The default is package time's clock; tests inject their own
// with [WithClock], or run the real one inside testing/synctest.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// AfterFunc calls f in its own goroutine after d and returns a function
	// that cancels the call if it has not happened yet.
	AfterFunc(d time.Duration, f func()) (cancel func() bool)
}

// systemClock is the [Clock] of package time, the runtime's default.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// Since is time.Since: the runtime measures work with it, as it reads the
// monotonic clock alone, which costs less than Now.
func (systemClock) Since(t time.Time) time.Duration { return time.Since(t) }

// The runtime looks for this method on a Clock (see internal/cell's crew).
var _ interface{ Since(time.Time) time.Duration } = systemClock{}

func (systemClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}
