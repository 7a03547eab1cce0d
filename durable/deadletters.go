package durable

import (
	"fmt"

	"github.com/evolvekit/evolve/agent"
)

// DeadLetterSink returns a chain's dead-letter sink of the user's own: f
// takes each dead letter (its Item is an Item, or a slice of them), and
// once f returns nil the items are acknowledged; if f fails, they go to
// the queue's dead letters instead. Give it to the chain as
// compose.WithDeadLetters(durable.DeadLetterSink(q, f)). A chain without a
// dead-letter sink that acknowledges (this one, or [Queue.DeadLetters])
// hands back what it fails only when [Consume] ends.
func DeadLetterSink[T any](q *Queue[T], f func(agent.DeadLetter) error) func(agent.DeadLetter) {
	return func(d agent.DeadLetter) {
		if err := call(func() error { return f(d) }); err != nil {
			d.Err = fmt.Errorf("%v (and the dead-letter sink failed: %v)", d.Err, err)
			q.DeadLetters(d)
			return
		}
		for _, t := range tickets(d.Item) {
			q.ackConfirmed(t)
		}
	}
}
