package livepage

// Phase is what a stage was doing at one sample: busy, held back by the
// stage after it, or idle.
type Phase int

// The phases of a sample (see the package doc, under Shares).
const (
	Idle Phase = iota
	Busy
	Held
)

// String returns "idle", "busy" or "held".
func (p Phase) String() string {
	switch p {
	case Busy:
		return "busy"
	case Held:
		return "held"
	}
	return "idle"
}

// Sample is what a stage's status says at one instant that its phase
// depends on.
type Sample struct {
	// Queued, InFlight and Demand are the stage's agent.Load; Unbounded
	// is true when its demand stands for no limit (nothing after it
	// throttles it).
	Queued, InFlight, Demand int
	Unbounded                bool
	// Results counts the results the stage finished and has not passed
	// on (a parallel or remote stage's Held).
	Results int
	// Open counts the queued items in a batch still open, waiting for
	// more input rather than for the stage (a buffer's Pending).
	Open int
	// Limit is the most work the stage may have in flight (a remote
	// stage's workers' slots); 0 for a stage with none.
	Limit int
}

// Classify returns the phase of a stage at a sample: Held when nothing
// after it takes more (its demand is zero) while it holds results, or
// queued items and no work in flight; otherwise Busy when it has work in
// flight or items queued that it is taking up (a rate stage spending its
// tokens, a parallel stage at its limit); Idle when it has nothing to do.
// It is a pure function.
func Classify(s Sample) Phase {
	queued := s.Queued - s.Open
	blocked := s.Demand <= 0 && !s.Unbounded
	switch {
	case blocked && (s.Results > 0 || (s.InFlight == 0 && queued > 0)):
		return Held
	case s.InFlight > 0 || queued > 0:
		return Busy
	}
	return Idle
}

// Weigh returns the shares of a sample: all of it in its phase by
// [Classify], but that a stage with a limit is busy in proportion to its
// work in flight and idle for the rest (one of eight slots at work is an
// eighth busy). It is a pure function.
func Weigh(s Sample) Shares {
	switch Classify(s) {
	case Held:
		return Shares{Held: 1}
	case Idle:
		return Shares{Idle: 1}
	}
	if s.Limit <= 0 || s.InFlight >= s.Limit {
		return Shares{Busy: 1}
	}
	b := float64(s.InFlight) / float64(s.Limit)
	return Shares{Busy: b, Idle: 1 - b}
}
