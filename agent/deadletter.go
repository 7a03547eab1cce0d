package agent

import "fmt"

// DeadLettersError is what Wait returns for an agent whose failed items
// went to a dead-letter sink: how many went there, and the first of them.
// It unwraps to the first one's error. Its message names the agent once,
// and gives the first item's value apart from its Seq, its place in the
// input counted from 0.
type DeadLettersError struct {
	Agent string
	N     int
	First DeadLetter
}

// Error says how many items went to the dead letters, and why the first
// did.
func (e *DeadLettersError) Error() string {
	return fmt.Sprintf("%s: %d %s to the dead letters; the first (item %v, seq %d) %s: %v",
		e.Agent, e.N, plural(e.N, "item went", "items went"), e.First.Item, e.First.Seq, e.First.tries(), e.First.Err)
}

// Unwrap returns the first dead letter's error.
func (e *DeadLettersError) Unwrap() error { return e.First.Err }

// tries says how the item failed: after how many attempts, or, once a
// failure cancelled the rest, without being tried.
func (d DeadLetter) tries() string {
	if d.Attempts == 0 {
		return "failed without being tried"
	}
	return fmt.Sprintf("failed after %d %s", d.Attempts, plural(d.Attempts, "attempt", "attempts"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
