// Package sim runs agents in virtual time, deterministically (from the Run
// example):
//
//	double, err := parallel.Stage(parallel.Config{Limit: 8, Unordered: true, MaxBatch: 1},
//		func(_ context.Context, v int) (int, error) { return 2 * v, nil })
//	res, err := sim.Run(sim.Config{
//		Seed:     1,
//		Capacity: []sim.Capacity{sim.Curve{Base: 10 * time.Millisecond, Knee: 8, Contention: 0.5}},
//		Arrivals: sim.Flood{},
//		Duration: 10 * time.Second,
//	}, sim.Chain[int, int]{Stage: double})
//	st := res.Agents[0]
//	fmt.Printf("%d done, %.0f a second, p99 service time %v\n", st.Done, res.Throughput, st.Service.Quantile(0.99).Round(time.Millisecond))
//
// The same seed gives the same run, byte for byte; here ten virtual
// seconds take a few milliseconds. The agents' own evolve and work
// functions run, linked as the runtime links them, while a [Capacity] says
// how long the work takes; an agent that breaks its promises (emits beyond
// its demand, say) stops the run with [ErrBroken].
//
// An agent's behaviour is a pure [agent.Evolve] function, so a simulator can
// drive it with no goroutines, no clock and no sleeping. [Run] takes a
// stage: one agent (parallel.Stage, adaptive.Stage, or spawn.Stage for an
// evolve function of your own) or several linked with compose.Pipe2, Pipe3
// or Pipe4 (rate, parallel, adaptive, buffer, or agents of your own). It
// keeps an agenda of events ordered by virtual time (ties broken by the
// order they were scheduled), stamps every message with its virtual
// instant, and links the agents and performs the effects they ask for the
// way the runtime would:
//
//   - Each agent starts with the input bound of the next as its demand
//     (the last with the sink's, [Config.Demand]); but a pacer (a rate
//     stage) whose next agent reserves passes (asks it for a token for
//     each retry: [AgentResult].Reserved and Granted count them) starts
//     with none, and that
//     agent gives it demand only for the items it can start as they come.
//   - Start runs the stage's own work function at once, synchronously,
//     with a context that is never cancelled, so work under simulation
//     must be quick, pure code (no I/O, no sleeping, no clock). Its Done
//     arrives after the service time the agent's [Capacity] gives at the
//     concurrency of its work in flight when it starts, or, under
//     [Sharing], once its share of the capacity has got through it.
//   - Timer and Disarm arm and cancel timers, whose Ticks arrive on time
//     (re-arming a tag replaces its timer).
//   - Demand gives input slots back: a Pull for the agent before (unless
//     that is such a pacer, whose demand is the room opened: the items
//     the agent can start as they come), or, from
//     the first agent, room for the feeder, which posts waiting items at
//     once. Items arrive as the [Arrivals] say; those that find the first
//     agent's queue full wait outside it, in a backlog.
//   - Emit passes values through the stage's MapOut and MapIn functions
//     into the next agent's Input, or, from the last, to the sink
//     ([Chain.Sink]).
//   - A pass an agent reserves for a retry behind a pacer (a rate stage)
//     waits for that pacer to grant it; with no pacer before it, the pass
//     comes at once, as the runtime grants it.
//   - Finish, or word that an agent has drained, closes the next agent's
//     input; the run ends when every agent has finished.
//   - Cancel changes nothing: simulated work has no context to end, so it
//     takes its service time and its Done arrives as it would have.
//
// Randomness comes from seeded PCG sources, one for arrivals and one per
// agent for service times, so the same seed gives the same run, byte for
// byte (see [Result.Digest] and [Trace.WriteCSV]), and every stage run
// with one seed sees the same arrivals. [Curve] models work whose
// throughput grows linearly up to a knee and then suffers contention,
// with optional heavy-tailed noise; [Gradual] has no sharp knee; [Step]
// changes the capacity while the run goes on. [Flood], [Steady],
// [Batches], [Bursts], [Spells] and [Switch] model overload, steady and
// Poisson traffic, random batches, bursts, idle spells and changes of
// load. The [Result] keeps the totals of the run and, for each agent, an
// [AgentResult]: its counts, trace and final status.
//
// The simulator checks the agents' promises as it goes: an agent that
// emits beyond its demand, gives back input slots it never had, is handed
// more items than its queue's bound, starts one ID twice, or answers a
// message with [agent.Unhandled] (a Done or Input of a type it does not
// take, say) stops the run with [ErrBroken].
//
// # Cost
//
// A run delivers two to three million messages a second on two cores
// (the machine's speed moves it that much): the chain rate, parallel (4)
// and buffer (100) under overload, in BenchmarkChain, measured with
//
//	go test -run '^$' -bench 'BenchmarkChain$' -benchtime 20x -count 5 ./sim/
//
// A message between agents costs an append to a queue of the messages due
// now, a later event a heap operation, and handing a message over the box
// of its agent.Msg, when it is larger than a word: an agent's Emit is
// passed on as the next agent's batch, with no copy of its values, the
// items of the arrivals and the values of conversions are cut from slabs,
// with the Emits that hold them (package internal/slab, core.Batch), and
// an Input and a Done go to an agent's spec unboxed when it takes them so
// (core.Machine's StepInput and StepDone). The allocations, about 1.1 a
// message (2.0 before Inputs went unboxed and batches came from slabs, 4.1
// before the slabs and the Emit passed on), are the agents' own and the
// boxes left: the effects
// the agents return (each Emit and Start), the other messages handed to
// them (a Pull, a Tick), the values rate copies out to emit, and the
// arrays that the persistent queues of rate's and parallel's states take
// as they move on. In a CPU profile of the benchmark, about half the time
// goes to the agents' evolve functions (parallel's a third, rate's a
// sixth), about a sixth to the allocator and the collector, under a tenth
// to the agenda, and the rest to handing messages over, performing effects
// and drawing service times.
package sim
