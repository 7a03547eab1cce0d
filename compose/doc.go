// Package compose links agents into typed chains: the values one stage
// emits are the items the next one takes, and the last stage's values go to
// a sink.
//
//	plan := compose.Then(compose.Then(compose.From(limit), work), batches)
//	chain, err := compose.Start(rt, plan, sink)
//
// A chain is bounded end to end by demand. Each stage starts with as much
// demand as the next stage's input queue holds and earns more only as that
// stage takes items out of its queue, so a stage never emits more than the
// next can hold, and without demand it stops starting new work. A producer
// that is faster than the slowest stage is slowed to its pace: [Chain.Post]
// blocks while the first stage is full (or drops, or fails, as the chain's
// [Overflow] policy says). No mailbox grows without bound.
//
// [Chain.Close] ends the input. Each stage drains what it holds and then
// closes the next, so [Chain.Wait] returns once the sink has seen every
// value, with the errors of every stage joined. Nothing is polled.
package compose
