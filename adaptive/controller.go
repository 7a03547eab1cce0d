package adaptive

import (
	"math/rand/v2"
	"time"
)

// Controller chooses an adaptive agent's limit from what its completed work
// tells it. The agent calls Observe once per piece of work done, with a
// [Sample] that describes it, and sets the limit to what Observe returns,
// brought within the Sample's Min and Max (see the package doc, Samples).
//
// A Controller is a value, kept in the agent's State: Observe returns the
// controller to keep, and must not change any memory the receiver can reach
// (copy a slice before changing it), so an earlier State stays valid. It
// must be pure: no clock (time is in the Sample), no goroutines, no I/O, no
// randomness but r, which draws from the source in the agent's State.
//
// The zero value of [Hill], this package's controller, is ready to use,
// with the defaults its fields document.
type Controller interface {
	// Name names the controller in Status and logs.
	Name() string
	// Observe returns the controller after seeing s, and the limit it wants.
	Observe(s Sample, r *rand.Rand) (Controller, int)
	// View returns what the controller believes now, for Status.
	View() View
}

// Sample describes one piece of work (one item) that has just finished, and
// the agent at that moment, with that work still counted in flight.
type Sample struct {
	// At is the instant the work finished: the At of its Done.
	At time.Time
	// Service is the work's service time, from its Start to its Done.
	Service time.Duration
	// Wait is how long the item waited in the input queue before it started.
	Wait time.Duration
	// Started counts the work in flight just after this one started,
	// itself included: the concurrency it ran at.
	Started int
	// InFlight counts the work in flight when it finished, itself included.
	InFlight int
	// Queued counts the items waiting to start.
	Queued int
	// Limit is the limit in force; Min and Max bound the limit the agent
	// will set.
	Limit, Min, Max int
	// Elapsed is the time since the previous sample (or since the agent's
	// first message), and Busy the part of it during which the agent was
	// saturated: items waiting and at least Limit in flight.
	Elapsed, Busy time.Duration
	// Failed is true when the item failed, as the agent counts failures:
	// its work returned an error, panicked or ran past the Timeout, or the
	// Done carried no result for it.
	Failed bool
}

// View is what a controller believes, as [Status] reports it.
type View struct {
	// Phase says what the controller is doing, in a word of its own:
	// "start", "search", "probe", "hold" for [Hill].
	Phase string
	// Throughput is the controller's estimate of the throughput at the
	// current limit, in items per second; 0 when it has none.
	Throughput float64
	// Latency is the controller's estimate of the service time; 0 when it
	// has none.
	Latency time.Duration
}

// clamp brings n within [lo, hi].
func clamp(n, lo, hi int) int { return min(max(n, lo), hi) }
