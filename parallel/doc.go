// Package parallel runs work on many items at once, at most a limit of them
// at a time, and passes the results on in input order, or as they finish.
//
// [New] starts an [Agent] on an [agent.Runtime]. Post items to it; it runs
// its [Work] on each in a goroutine the runtime owns and hands every [Result]
// (the item's input position Seq, the work's value, its error) to a sink
// function. The input queue is bounded, so Post blocks while it is full and
// TryPost reports agent.ErrFull. Work that returns an error or panics makes a
// failed Result (a panic arrives as an *agent.PanicError with its stack): it
// is counted in [Status] and passed on like any other, and the agent carries
// on. After Close, Wait returns once every accepted item has been finished
// and emitted, with the first failure the agent saw, as errgroup's Wait does.
// [Agent.SetLimit] changes the limit while the agent runs.
//
// In input order, a result that finishes before an earlier one is held until
// that one is emitted, and while as many results as the limit (times the
// batch size, below) are held no new work starts: a slow item delays the
// output behind it, but the memory it pins stays bounded.
//
// # Batches
//
// Handing an item to a worker and its result back costs a few microseconds.
// For work that takes less, the agent hands a worker a [Batch] of queued
// items to work on one after another, so the hand-over is paid once per
// batch. At most Limit items are still worked on at once, one per worker.
// The agent sizes batches from the time its items have taken so far (from
// the message that started a batch to the one that brought its results), so
// that a batch takes about [RunSpan]: work of that length or more goes one
// item at a time, as does all work until the first batch has finished.
// [Config.Run] bounds a batch, and Run 1 turns batches off. The cost of a
// batch is that an item may wait behind the others of its batch, up to about
// RunSpan, or longer when one of them is much slower than the rest.
//
// The agent's whole behaviour is [Evolve], a pure function over a [State]
// value: tests and simulators drive it directly, with no goroutines and no
// clock (see package agenttest and the Evolve example).
//
// # Concurrency
//
// An Agent is safe for concurrent use. Work runs concurrently, up to the
// limit; the sink is called on the agent's own goroutine, one result at a
// time, so it needs no locking, and a slow sink slows the agent. A State is
// a value that Evolve never changes; two States evolved from one share
// memory, so they must not be evolved on two goroutines at once.
//
// # Cost
//
// On a two-core machine, an item with trivial work costs well under 1 µs end
// to end once batches have formed (one Post, a share of a batch's hand-over
// and of its Evolve calls, one call of the sink); see BenchmarkAgent and
// BenchmarkEvolve. Evolve's time per message grows with the batches in
// flight and the results held.
//
// # Zero values
//
// The zero [Config] is not valid: Limit is required. Its other fields default
// to the name "parallel", an input queue of [agent.DefaultQueue] items, and
// output in input order. The zero State is not usable; [NewState] builds one.
package parallel
