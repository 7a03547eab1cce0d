// Package core is what an agent package builds on: the [Spec] of its
// agent, [Spawn] to run it on its own, [NewStage] to make it a stage of a
// chain, and [Set] to change its settings while it runs. It links stages
// ([Link], [MapIn], [MapOut]), starts them wired to their neighbours, and
// describes them as a [Plan] for drivers other than the runtime. Package
// agent holds the types a program sees; the runtime that runs one agent
// is package cell, and package chain starts a whole chain from a Stage.
//
// # Stepping
//
// A Spec has five ways to step its agent. The first is all a new agent
// needs; each other one is a measured gain for agents that take many
// messages, and one more thing to keep equal to the first:
//
//   - Evolve, always. It is the agent's behaviour, a pure function of a
//     state and a message: its tests, its final status and a replay call
//     it, and a Spec that gives nothing else runs with it.
//   - Step, for an agent that every item of a busy chain passes through,
//     whose state is more than a few words: Evolve on a state changed in
//     place, so that no step copies the state in and out (nor through
//     each part of the step that hands it on). Rate's, buffer's and
//     parallel's states were 168 to 392 bytes when Step came, and with it
//     the chain benchmark went from about 116 to 101 ns an item on two
//     cores. Write Evolve as Step on its own copy, as they do, so that
//     the two cannot differ.
//   - StepDone and StepDones, only for an agent whose messages are mostly
//     Dones because it keeps thousands of Starts in flight (parallel's, at
//     a high Limit). StepDone takes a Done by pointer rather than boxed in
//     a message: at Limit 10,000, 197 to 115 bytes an item and about 5%
//     less CPU. StepDones takes the Dones of a round at once and settles
//     once after them: at the same limit, a million items took 3.51 s of
//     CPU rather than 3.94. An agent with a few Starts in flight gains
//     nothing from them; and StepDones may group its effects otherwise
//     than StepDone would, which the agent's tests must allow for (see
//     spec.Spec).
//   - StepInput, for an agent that every item of a simulated chain passes
//     through: it takes an Input by pointer, as StepDone takes a Done, so
//     that the simulator, which delivers an Input a hop, boxes none.
//     Rate's, parallel's and buffer's took BenchmarkSim from 375,000 to
//     272,000 allocations a run and about 5% more messages a second. The
//     runtime boxes the one Input of a round and does not call it.
//
// # Names
//
// A [Stage] is agents described, not yet running; a [Run] is a Stage
// started. Each of its agents is a [Member], with the type of the items it
// takes, or a [Runner], whatever its types (puller for the agent after it);
// a Member runs a cell.Agent. A [Plan] is a Stage described for a driver
// of its own, each agent a [Machine].
package core
