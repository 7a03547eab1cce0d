// Package adaptive runs work on many items at once, like package parallel,
// but learns how many: its limit is chosen, between a minimum and a maximum,
// by a controller fed with what completed work tells it.
//
// [New] starts an [Agent] on an [agent.Runtime]; post items to it and it
// hands each parallel.Result to a sink, in input order unless configured
// Unordered, exactly as a parallel agent does (Post, TryPost, Close, Wait,
// Status, Stop; [Agent.SetLimit] sets the limit by hand). [Stage] makes one
// stage of a chain for package compose. Every time a piece of work
// completes, the agent hands its [Controller] a [Sample]: the work's service
// time from Start to Done (measured from the messages' At stamps), how long
// its item waited in the queue, the concurrency it ran at, and how long the
// agent was saturated (items waiting while the limit was in flight). The
// controller answers with the limit it wants, which the agent brings within
// Min and Max. So that every sample is one item's, the adaptive agent hands
// its workers one item at a time: it makes no batches (see parallel's
// Config.Run), which work of a millisecond or more does not need.
//
// Controllers are pure values, so they can be compared on equal terms in
// the simulator (package agent/sim; see examples/backtest and
// docs/adaptive.md):
//
//   - [Hill], the default, is evolve's own: it estimates the throughput at a
//     limit by Little's law from service times, moves only on significant
//     evidence, grows the limit only while the agent is saturated (so it
//     does not drift under light load), forgets old estimates and notices a
//     change of capacity.
//   - [Santa] is the algorithm the adaptive agent descends from, kept as a
//     baseline with its flaws.
//   - [AIMD] and [Gradient2] follow Netflix's concurrency-limits library.
//   - [Fixed] never changes the limit.
//
// The agent's whole behaviour is [Evolve], a pure function over a [State]
// value that keeps the controller and a seeded PCG random source for it:
// tests and the simulator drive it directly, with no goroutines and no
// clock.
//
// # Concurrency
//
// An Agent is safe for concurrent use. Work runs concurrently, up to the
// limit; the sink is called on the agent's own goroutine, one result at a
// time. A State is a value that Evolve never changes; two States evolved
// from one share memory, so they must not be evolved on two goroutines at
// once.
//
// # Cost
//
// Evolve costs what parallel.Evolve does, plus one call of the controller
// per completion and a copy of the list of work in flight: on a two-core
// machine, about 2 µs per item (one Input and one Done) with a limit of 8,
// whichever controller; see BenchmarkEvolve.
//
// # Zero values
//
// The zero [Config] is valid: a limit from 1 to [DefaultMax], starting at 1,
// chosen by a zero Hill. The zero value of every controller is ready to use.
// The zero State is not usable; [NewState] builds one.
package adaptive
