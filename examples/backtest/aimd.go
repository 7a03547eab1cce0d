package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/evolvekit/evolve/adaptive"
)

// AIMD is additive increase, multiplicative decrease, as Netflix's
// concurrency-limits library does it (AIMDLimit): a sample that failed or
// took longer than Timeout is a drop, and multiplies the limit by Backoff,
// rounded down; any other raises it by one, provided the work ran with at
// least half the limit in flight (so an idle agent does not grow its
// limit). Per completion, it is fed every sample; wrapped in [Windowed],
// one per window.
//
// AIMD's zero value is ready to use, with the library's defaults below; its
// Timeout should be set from what the work is expected to take.
type AIMD struct {
	// Timeout is the service time beyond which work counts as a drop; 0
	// means 5 seconds.
	Timeout time.Duration
	// Backoff is the factor a drop multiplies the limit by; 0 means 0.9.
	Backoff float64
}

// Name returns "aimd".
func (AIMD) Name() string { return "aimd" }

// View reports the phase "aimd".
func (a AIMD) View() adaptive.View { return adaptive.View{Phase: "aimd"} }

// String reports the settings, as the sweep prints them.
func (a AIMD) String() string {
	return fmt.Sprintf("timeout=%v backoff=%v", or(a.Timeout, 5*time.Second), or(a.Backoff, 0.9))
}

// Validate reports a timeout or backoff out of range.
func (a AIMD) Validate() error {
	if a.Timeout < 0 || !(a.Backoff >= 0 && a.Backoff < 1) {
		return invalid("aimd: timeout must not be negative and backoff must be at least 0 and below 1, got %v and %v",
			a.Timeout, a.Backoff)
	}
	return nil
}

// Observe raises the limit by one or cuts it.
func (a AIMD) Observe(s adaptive.Sample, _ *rand.Rand) (adaptive.Controller, int) {
	switch {
	case s.Failed || s.Service > or(a.Timeout, 5*time.Second):
		return a, int(math.Floor(float64(s.Limit) * or(a.Backoff, 0.9)))
	case 2*s.Started >= s.Limit:
		return a, s.Limit + 1
	}
	return a, s.Limit
}
