package replay

import (
	"errors"
	"fmt"
)

// ErrRecording is reported by [Run] for a recording it cannot read: not
// one compose.WithRecording wrote, of another chain than the stage given,
// with a step missing, or holding a message the stage's agents do not
// take. errors.Is(err, ErrRecording) is true and the message names the
// line.
var ErrRecording = errors.New("replay: cannot replay the recording")

// ErrDiverged is reported by [Run] when an agent's evolve, fed a recorded
// message, does not return what it returned when recorded. The error is a
// [*DivergenceError] saying where.
var ErrDiverged = errors.New("replay: evolve diverged from the recording")

// DivergenceError is the error of a [Run] whose agent did not do again
// what it did when recorded. errors.Is(err, ErrDiverged) is true.
type DivergenceError struct {
	// Agent is the agent's position in the chain, from 0, and Name its
	// name.
	Agent int
	Name  string
	// Step counts the agent's messages up to the one that diverged, from
	// 1; Message is that message's kind ("Done"), or "final status" for
	// the status the agent ended with, checked after its last step.
	Step    int
	Message string
	// What says what differs: "effect 2" (counting from 0), "the
	// effects" (their number), "the panic" (evolve panicked on one side
	// only) or "the final status".
	What string
	// Recorded and Replayed are the encodings of what differs: the
	// effect, all the effects, or the status.
	Recorded, Replayed string
}

// Error names the agent, the step and the difference, showing the two
// encodings around the first byte where they differ.
func (e *DivergenceError) Error() string {
	rec, rep := around(e.Recorded, e.Replayed)
	return fmt.Sprintf("replay: agent %d (%s), step %d (%s): %s differs: recorded %s, replayed %s",
		e.Agent, e.Name, e.Step, e.Message, e.What, rec, rep)
}

// Is reports whether target is ErrDiverged.
func (e *DivergenceError) Is(target error) bool { return target == ErrDiverged }

// around returns a and b cut to some 60 bytes on either side of the first
// byte where they differ.
func around(a, b string) (string, string) {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	cut := func(s string) string {
		from, to := max(i-60, 0), min(i+60, len(s))
		out := s[from:to]
		if from > 0 {
			out = "…" + out
		}
		if to < len(s) {
			out += "…"
		}
		return out
	}
	return cut(a), cut(b)
}

// unreadable returns an error wrapping ErrRecording that says why.
func unreadable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRecording, fmt.Sprintf(format, args...))
}
