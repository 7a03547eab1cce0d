package agent

import "fmt"

// DeadLettersError is what Wait returns for an agent whose failed items
// went to a dead-letter sink: how many went there, and the first of them.
// It unwraps to the first one's error.
type DeadLettersError struct {
	Agent string
	N     int
	First DeadLetter
}

// Error says how many items went to the dead letters, and why the first
// did.
func (e *DeadLettersError) Error() string {
	return fmt.Sprintf("%s: %d items went to the dead letters; the first, item %d, after %d attempts: %v",
		e.Agent, e.N, e.First.Seq, e.First.Attempts, e.First.Err)
}

// Unwrap returns the first dead letter's error.
func (e *DeadLettersError) Unwrap() error { return e.First.Err }
