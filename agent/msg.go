package agent

import "time"

// Msg is one message to an agent. The set of messages is closed: the runtime
// sends exactly the types in this file, and an evolve function switches on
// them. For a message it does not take, an evolve function returns its state
// unchanged and the one effect [Unhandled].
//
// Every message carries At, the instant the runtime delivered it to evolve.
// The runtime overwrites At; tests set it (see [Stamp]).
type Msg interface {
	stamp(at time.Time) Msg
}

// Stamp returns m with its At field set to at. The runtime stamps every
// message this way just before evolve sees it; test drivers do the same.
func Stamp(m Msg, at time.Time) Msg { return m.stamp(at) }

// Input brings items posted to the agent, in the order they were posted.
// The runtime reuses the Items slice once the agent has taken in the round
// of messages it came in: an evolve function copies the items it keeps or
// hands to a Start's work (appending them to a slice of its own does),
// though it may emit them as they are in the same step.
type Input[I any] struct {
	At    time.Time
	Items []I
}

// Close says that no more input will come. Once everything accepted has been
// finished and emitted, the agent answers with a [Finish] effect.
type Close struct {
	At time.Time
}

// Done reports that the work started by the [Start] effect with the same ID
// has ended, with its result or its error. A panic in the work arrives as an
// error of type [*PanicError]. Took is how long the work itself ran, as the
// runtime measured it on its clock: without the time the Start and the Done
// waited to be handed over, which At minus the Start's instant includes. It
// is zero when nobody measured it (a test that builds the Done, say).
type Done[R any] struct {
	At     time.Time
	ID     uint64
	Result R
	Err    error
	Took   time.Duration
}

// Tick is the message a [Timer] effect asked for, carrying the timer's Tag.
// The runtime drops the Tick of a timer that was disarmed or replaced, but a
// driver that does not (a test replaying steps, say) may deliver it, so an
// agent compares Tag with the tag it expects and ignores stale ticks.
type Tick struct {
	At  time.Time
	Tag uint64
}

// Pull grants the agent demand: downstream will accept N more values. An
// agent emits only while it holds demand, and caps what it holds at
// [Unbounded] so that repeated grants cannot overflow. A standalone agent,
// whose output goes to a sink function, is granted Unbounded demand when it
// starts.
type Pull struct {
	At time.Time
	N  int
}

// Query asks the agent for a snapshot of its state. The agent answers with a
// [Reply] effect carrying the same ID.
type Query struct {
	At time.Time
	ID uint64
}

// Set carries a change of the agent's settings while it runs, such as a new
// concurrency limit or a new rate. Each agent package defines its own C.
type Set[C any] struct {
	At    time.Time
	Value C
}

// Event brings the agent something of a kind its own package defines: what
// happened outside the runtime, such as a remote worker that registered or
// the results it sent back, or what the agents of a chain say to each other
// to keep its pace. The runtime delivers it as it delivers the other
// messages, stamped, in the order it came. An agent that takes no events
// answers one with [Unhandled].
type Event[E any] struct {
	At    time.Time
	Value E
}

// Unbounded is the demand granted to an agent whose output nobody throttles.
// It is large enough never to run out and small enough not to overflow when
// added to.
const Unbounded = 1 << 60

func (m Input[I]) stamp(at time.Time) Msg { m.At = at; return m }
func (m Close) stamp(at time.Time) Msg    { m.At = at; return m }
func (m Done[R]) stamp(at time.Time) Msg  { m.At = at; return m }
func (m Tick) stamp(at time.Time) Msg     { m.At = at; return m }
func (m Pull) stamp(at time.Time) Msg     { m.At = at; return m }
func (m Query) stamp(at time.Time) Msg    { m.At = at; return m }
func (m Set[C]) stamp(at time.Time) Msg   { m.At = at; return m }
func (m Event[E]) stamp(at time.Time) Msg { m.At = at; return m }
