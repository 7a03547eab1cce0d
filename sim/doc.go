// Package sim runs agents in virtual time, deterministically.
//
// An agent's behaviour is a pure [agent.Evolve] function, so a simulator can
// drive it with no goroutines, no clock and no sleeping: [Run] keeps an
// event queue ordered by virtual time (ties broken by the order events were
// scheduled), stamps every message with its virtual instant, and performs
// the effects the agent asks for the way the runtime would:
//
//   - Start runs a piece of work: its Done arrives after a service time the
//     [Capacity] gives at the concurrency in effect when it starts.
//   - Timer and Disarm arm and cancel timers, whose Ticks arrive on time
//     (re-arming a tag replaces its timer).
//   - Demand gives input slots back to the feeder, which posts waiting items
//     at once. Items arrive as the [Arrivals] say; those that find the input
//     queue full wait outside it, in a backlog.
//   - Emit counts completed values against the demand granted downstream.
//   - Reserve is granted at once, as the runtime grants the passes of an
//     agent with no pacer before it: a Pass arrives at the same instant.
//   - Finish ends the run.
//   - Cancel changes nothing: simulated work has no context to end, so it
//     takes its service time and its Done arrives as it would have.
//
// Randomness comes from two seeded PCG sources, one for arrivals and one
// for service times, so the same seed gives the same run, byte for byte
// (see [Result.Digest] and [Trace.WriteCSV]), and every agent run with one
// seed sees the same arrivals. [Curve] models work whose throughput grows
// linearly up to a knee and then suffers contention, with optional
// heavy-tailed noise; [Step] changes the capacity while the run goes on.
// [Flood], [Steady], [Batches], [Bursts], [Spells] and [Switch] model
// overload, steady and Poisson traffic, random batches, bursts, idle spells
// and changes of load.
//
// # Chains
//
// [RunChain] runs a whole chain the same way: a Stage of agents linked
// with compose.Pipe2, Pipe3 or Pipe4 (rate, parallel, adaptive, buffer, or
// agents of your own from package spawn). The simulator links them as the
// runtime does. Each agent starts with the input bound of the next as its
// demand, and its Demand goes to the agent before it (the first's to the
// feeder of the Arrivals). Its Emit passes through the stage's MapOut and
// MapIn functions into the next one's Input, and its Finish or Drained
// closes the next one. A Reserve behind a pacer (a rate stage) becomes a
// Reservation of that pacer, whose Grant comes back as a Pass. Each agent
// has a [Capacity] of its own in [ChainConfig]; its Starts run the
// stage's own work function at once and their Dones arrive after the
// service time. So work under simulation must be quick, pure code: it runs
// synchronously, with a context that is never cancelled. The [Result]
// keeps counts, a trace and the final status for each agent, and one
// digest of every message delivered. Each agent draws its service times
// from a seeded source of its own.
//
// The simulator checks the agent's promises as it goes: an agent that emits
// beyond its demand, gives back input slots it never had, starts one ID
// twice, or answers a message with [agent.Unhandled] (a Done or Input of a
// type it does not take, say) stops the run with [ErrBroken]. In a chain,
// so does an agent handed more items than its queue's bound.
//
// # Cost
//
// A run delivers a few million messages per second on one core (see
// BenchmarkRun): an event costs a heap operation, a map update and the
// agent's own evolve. A chain run delivers over a million a second (see
// BenchmarkChain), most of the time going to the agents' evolve
// functions: a message between agents costs an append to a queue of the
// messages due now.
package sim
