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
// that one is emitted, and while as many results as the limit are held no new
// work starts: a slow item delays the output behind it, but the memory it
// pins stays bounded (at most about twice the limit of results).
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
// an immutable value, safe to share.
//
// # Cost
//
// On a two-core machine, an item with trivial work costs about 5 µs end to
// end (one Post, one goroutine, one completion message, one call of the
// sink), of which Evolve takes under 1 µs; see BenchmarkAgent and
// BenchmarkEvolve. Evolve's time per message grows with the work in flight
// and the results held, so with a limit in the hundreds it copies a few
// kilobytes per item.
//
// # Zero values
//
// The zero [Config] is not valid: Limit is required. Its other fields default
// to the name "parallel", an input queue of [agent.DefaultQueue] items, and
// output in input order. The zero State is not usable; [NewState] builds one.
package parallel
