// Package agent is the contract every evolve agent follows, the runtime that
// runs them, and the handle a program holds on a running one.
//
// An agent's whole behaviour is an [Evolve] function: given the current state
// and one [Msg], it returns the next state and the [Effect] values it wants
// performed. Evolve is pure: it starts no goroutines, reads no clock, does no
// I/O and calls no user code. Time arrives inside each message, stamped by the
// runtime from its [Clock]; an agent that needs randomness keeps a seeded
// generator in its state. Because evolve is a plain function, an agent is
// unit-tested by calling it: package agenttest replays a table of (time,
// message) steps, with no goroutines and no sleeping.
//
// The [Runtime] is the imperative shell. It runs each agent in its own
// protoactor-go actor, stamps and delivers messages, runs the work that
// [Start] effects ask for on goroutines it owns, arms the timers that [Timer]
// effects ask for, and passes [Emit] values on as the demand downstream
// allows. An agent that talks to something outside the runtime, such as
// the master of a remote stage and its worker processes, takes what happens
// there as [Event] messages and asks for messages out with [Send] effects,
// which its package's own port performs. The agent packages (parallel,
// rate, buffer, adaptive, remote) start agents
// on it and return a [Handle]; package compose links agents into chains,
// which are Handles too; package spawn runs evolve functions of your
// own.
//
// # Lifecycle
//
// Close ends an agent's input; the agent finishes what it accepted, says
// [Finish], and ends: the runtime takes its final status, lets its workers
// go and removes its actor, and Wait returns. Nothing is left behind but the
// handle's outcome and final status, so a program may start an agent or a
// chain per request, on one runtime, without ever stopping one. Stop ends an
// agent at once; [Runtime.Shutdown] stops whatever still runs.
//
// # Goroutines
//
// Every goroutine the runtime starts has an owner that waits for it. An
// agent's work runs on its workers: a worker runs one [Start] at a time and
// then waits for the next, and a new one starts only when every worker is
// busy, so an agent keeps about as many workers as it ever had work items in
// flight; they return when the agent ends. Actors run on the runtime's own
// goroutines, which wait for the next actor with messages instead of ending,
// and return at Shutdown. Timers run on the [Clock]. An agent's rounds (its
// evolve, the effects it asks for, and its sink) run one at a time, each
// over before the next begins, but not always on one goroutine: the worker
// whose result wakes an idle agent runs its next round itself, and so does
// an agent of a chain for the idle neighbour it hands values or demand to,
// which saves a hand-over between goroutines each time.
//
// # Panics
//
// A panic in user work becomes a [*PanicError] carrying the value and the
// stack, delivered to the agent in [Done] like any other error: the agent
// lives on and decides what a failure means. A panic in a sink is logged and
// returned by Wait. A panic in evolve, or an evolve that breaks the contract
// (it returns [Unhandled] for a message the runtime sent it, or an effect of
// the wrong type), is a bug in the agent: the agent ends, the failure is
// logged with its stack, and Wait returns it. Nothing is recovered silently.
//
// # Flow control
//
// Mailboxes are unbounded; bounds live in the state machines. Every input
// queue has a bound: the handle holds one credit per free slot and Post spends
// one, so at most the bound of items wait; evolve gives slots back with
// [Demand] as items leave the queue (they start, are passed on, or go to a
// flush). Downstream, an agent emits only the demand it was granted with
// [Pull]. Every status embeds a [Load], which counts what an agent holds in
// the same terms for every kind of agent.
//
// An attempt that no new item brings, such as a retry, spends a pass: the
// agent asks for one with [Reserve] and starts the attempt on the [Pass]
// that brings it. In a chain whose stage before it keeps a pace (a rate
// agent), that stage grants the passes from its own bucket ([Reservation],
// [Grant]), so retries keep the chain's rate; elsewhere the runtime grants
// them at once. A pacer finishes only after the agent it paces, saying
// [Drained] in between.
//
// # Batches
//
// What is sent to an agent gathers in its inbox, and the first arrival after
// the agent went idle sends its actor one message. The actor then hands
// evolve everything that gathered: the demand granted as one [Pull], each
// work result as a [Done], then the items and the other messages (Close, Set,
// Query, Tick) in the order they came, the items between two of those as one
// [Input]; all stamped with one instant. So a busy agent costs one actor
// message per batch rather than per item, and an evolve function sees larger
// Inputs the busier its agent is.
package agent
