// Package agent runs agents and holds the handle a program keeps on a
// running one (from the NewRuntime example):
//
//	rt := agent.NewRuntime()
//	defer rt.Shutdown(context.Background())
//	h, err := parallel.New(rt, parallel.Config{Limit: 4}, double, show)
//	err = h.Post(ctx, n)
//	h.Close()
//	err = h.Wait(ctx)
//	st, err := h.Status(ctx)
//
// Every agent and every chain of this module is fed, drained, watched and
// stopped through the same [Handle]. An item whose Post returned nil comes
// out, or fails, exactly once; the input queue is bounded, so a producer
// faster than the agent is slowed to its pace; and by the time Wait reports
// that the agent finished, every goroutine it started has returned.
//
// # What a program calls
//
// A program calls four things here:
//
//   - [NewRuntime] makes the [Runtime] every agent and chain runs on
//     (logs, metrics and a clock are its options), and [Runtime.Shutdown]
//     ends it;
//   - each agent package's New, and compose.Start for a chain, return a
//     [Handle]: Post items, Close, Wait, Status, Stop; every status
//     embeds a [Load], a snapshot of the agent's queue and work in flight
//     (Queued, InFlight, Done, Failed, and the Demand it may still pass on);
//   - [DeadLetter] is what an item that failed for good becomes, and
//     [RetryAfter] is how work says when it may be tried again;
//   - [ErrFull], [ErrClosed] and [ErrStopped] are what Post, TryPost and
//     Wait report; a panic in work becomes a [*PanicError].
//
// In the index below, a program needs those and, beside them, the options
// ([Option], [WithLogger], [WithMeterProvider], [WithHistograms] with
// [NewHistograms], [WithClock]), [Stage] (what each agent package's Stage
// function returns for compose), [Credit], [DefaultQueue],
// [DeadLettersError], [RetryAfterError] and [ErrUnavailable]. Everything
// else in this package is the contract an agent is written against (below,
// under Writing an agent), which a program that only uses agents never
// meets.
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
// whose result wakes an idle agent runs its next round itself (an agent of
// more than 256 workers is woken on the runtime's goroutines instead), and
// so does an agent of a chain for the idle neighbour it hands values or
// demand to, which saves a hand-over between goroutines each time. A worker
// whose work took 100 µs or more, or of an agent of more than 256 workers,
// first yields its processor, so that the goroutines ready to run may go
// first: the results of work that ended together (timers that fired at
// once, replies read in one poll) are then taken in by one round, not a
// round each, for less CPU an item; a result may wait so for the
// goroutines that were ready before its round.
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
// # Writing an agent: the contract (package spawn)
//
// This section and the rest are for writing a new kind of agent: package
// spawn, the package for writing your own agent, runs an evolve function of
// your own. An
// agent's whole behaviour is an [Evolve] function: given the current state
// and one [Msg], it returns the next state and the [Effect] values it wants
// performed (from the package example):
//
//	func relayEvolve(s relay, m agent.Msg) (relay, []agent.Effect) {
//		switch m := m.(type) {
//		case agent.Pull:
//			s.demand += m.N
//		case agent.Input[string]:
//			s.waiting = append(s.waiting[:len(s.waiting):len(s.waiting)], m.Items...)
//		...
//		}
//		var fx []agent.Effect
//		if n := min(s.demand, len(s.waiting)); n > 0 {
//			fx = append(fx, agent.Emit[string]{Values: s.waiting[:n:n]}, agent.Demand{N: n})
//			s.waiting, s.demand = s.waiting[n:], s.demand-n
//		}
//		...
//		return s, fx
//	}
//
// Evolve is pure: it starts no goroutines, reads no clock, does no I/O and
// calls no user code. Time arrives inside each message, stamped by the
// runtime from its [Clock] (see [Stamp]); an agent that needs randomness
// keeps a seeded generator in its state. Because evolve is a plain
// function, an agent is unit-tested by calling it: package agenttest
// replays a table of (time, message) steps, with no goroutines and no
// sleeping.
//
// The messages are [Input], [Pull], [Done], [Tick], [Close], [Query], [Set]
// and [Event]; the effects [Start], [Emit], [Demand], [Timer], [Disarm],
// [Reply], [Finish], [Cancel], [DeadLetter], [Send] and [Unhandled]. Event
// and Send carry payloads an agent's own package defines, for what happens
// outside the runtime: the workers of a remote stage, say, or the pace the
// agents of a chain keep between them.
//
// The [Runtime] is the imperative shell. It runs each agent in its own
// protoactor-go actor, stamps and delivers messages, runs the work that
// [Start] effects ask for on goroutines it owns, arms the timers that [Timer]
// effects ask for, and passes [Emit] values on as the demand downstream
// allows.
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
// In a chain, the work after a rate stage starts at its pace: the agent
// after it gives it demand only for the items it can start as they come,
// and the attempts that no new item brings, such as retries, reserve a
// pass of that pace, which the rate stage grants from its bucket. The
// runtime carries that exchange as Event messages and Send effects of the
// module's own, which no other agent needs to take.
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
