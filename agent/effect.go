package agent

import "time"

// Effect is something an evolve function asks the runtime to do. Effects are
// inert values: building one does nothing, and a test compares them with
// ordinary equality. The set is closed: the runtime performs exactly the
// types in this file, in the order evolve returned them.
type Effect interface {
	effect()
}

// Start asks the runtime to run the agent's work on Work, at once, on a
// worker goroutine of the agent's own: the work of two Starts runs
// concurrently. When the work returns (or panics), the runtime sends the
// agent a [Done] message with the same ID.
type Start[W any] struct {
	ID   uint64
	Work W
}

// Emit hands Values downstream, in order: to the agent's sink, or to the next
// agent of a chain. An agent emits no more values than the demand it holds.
type Emit[O any] struct {
	Values []O
}

// Timer asks the runtime to send the agent a [Tick] carrying Tag after Delay.
// Arming a Tag that is already pending replaces that timer.
type Timer struct {
	Tag   uint64
	Delay time.Duration
}

// Disarm cancels the pending timer with Tag, if any. Its Tick will not
// arrive, even if the timer had already fired.
type Disarm struct {
	Tag uint64
}

// Demand gives N input slots back to whoever feeds the agent: N items have
// left the agent's input queue, so N more may be posted. The runtime starts
// the agent's feeder with as many slots as the queue's bound, so the queue
// never holds more than that.
type Demand struct {
	N int
}

// Reply answers the [Query] whose ID is To with a snapshot of the agent.
type Reply[V any] struct {
	To    uint64
	Value V
}

// Finish says the agent is done: input was closed and everything accepted has
// been finished and emitted. Err is what [Handle.Wait] returns: nil, or the
// first failure the agent saw. The runtime then takes the agent's final
// status (a [Query] evolve answers with a [Reply]), lets its workers go and
// removes its actor; nothing is delivered to evolve after Finish.
type Finish struct {
	Err error
}

// Cancel asks the runtime to cancel the context of the agent's work, with
// Cause as [context.Cause]: work running now sees its context end, and work
// started later starts with it ended. An agent asks for it to stop what is
// left after a failure that dooms it.
type Cancel struct {
	Cause error
}

// Send hands Value, of a kind the agent's own package defines, to what that
// package connected the agent to: a batch of items for a remote worker, say,
// or a reservation for the agent before it in a chain. The runtime hands it
// over at once, in order with the other effects; what takes it must not
// block, and a Send nobody takes fails the agent. What comes back arrives
// as [Event] messages.
type Send[E any] struct {
	Value E
}

// DeadLetter hands an item that failed for good to the dead-letter sink of
// the agent, or of the chain it is a stage of: the item itself, its Seq,
// the error of its last attempt and how many attempts it had (0 for an item
// failed without being tried, once a failure cancelled the rest). Without
// a sink, the runtime drops it, and the agent's failed result stands for
// the item as before. The runtime fills in Agent, the agent's name, before
// it hands the DeadLetter to the sink.
type DeadLetter struct {
	Agent    string
	Seq      uint64
	Item     any
	Err      error
	Attempts int
}

// Unhandled is what an evolve function returns, alone and with its state
// unchanged, for a message it does not take: a Done or Set of a type it does
// not expect, say. Every message a driver sends is one the agent asked for
// or must take, so a driver that gets Unhandled back reports a bug: the
// runtime fails the agent, package agenttest panics naming the step, and
// package sim stops the run with its ErrBroken.
type Unhandled struct{}

func (Start[W]) effect()   {}
func (Emit[O]) effect()    {}
func (Timer) effect()      {}
func (Disarm) effect()     {}
func (Demand) effect()     {}
func (Reply[V]) effect()   {}
func (Finish) effect()     {}
func (Cancel) effect()     {}
func (Unhandled) effect()  {}
func (Send[E]) effect()    {}
func (DeadLetter) effect() {}
