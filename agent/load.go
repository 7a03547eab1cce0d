package agent

import "strconv"

// Load is what the status of every agent says the same way: how much work
// it holds and has done, counted in items. Every status type embeds it, so
// st.Queued means one thing whatever the agent, and compose reports it for
// each stage of a chain without knowing the stage's type.
type Load struct {
	// Queued counts the items accepted and not yet taken up: not yet
	// started (parallel, adaptive), passed on (rate) or handed to a flush
	// (buffer). The agent's Queue setting bounds it.
	Queued int
	// InFlight counts the items handed to work (or to a flush) whose
	// results have not come back yet.
	InFlight int
	// Done counts the items whose work has ended, failed or not, or that
	// have passed through; Failed those of them that failed.
	Done   int
	Failed int
	// Demand is how many more values the agent may pass on before the one
	// after it takes more in. When nothing throttles the agent it starts at
	// [Unbounded] and goes down by one per value passed on; it prints, and
	// logs, as "unbounded" then (see [Credit]).
	Demand Credit
}

// Credit counts the values an agent may pass on before the one after it
// takes more in. Any credit of [Unbounded]/2 or more is unbounded: an
// unthrottled agent starts at Unbounded and spends one per value. A Credit
// prints as its number, or as "unbounded", with fmt's %v and %+v alike.
type Credit int

// IsUnbounded reports whether c stands for no limit at all.
func (c Credit) IsUnbounded() bool { return c >= Unbounded/2 }

// String returns c as a number, or "unbounded".
func (c Credit) String() string {
	if c.IsUnbounded() {
		return "unbounded"
	}
	return strconv.Itoa(int(c))
}

// load returns l; a status that embeds a Load has it too, which is how the
// runtime finds the Load in any status.
func (l Load) load() Load { return l }
