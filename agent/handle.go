package agent

import "context"

// Handle is a running agent, or a running chain of agents, as the program
// that feeds it holds it: I is the type of the items it takes, V the type of
// its status. Every constructor in this module returns one: each agent
// package's New, and compose.Start for a chain. So every agent and every
// chain is fed, drained, watched and stopped the same way.
//
// The input queue is bounded: Post blocks while it is full, TryPost reports
// [ErrFull]. Close ends the input, and Wait returns once everything accepted
// has been finished and passed on. An agent that has finished leaves nothing
// behind: by the time Wait returns, its actor is gone from the runtime and
// every goroutine it started has returned; its handle keeps only its outcome
// and its final status. Stop ends it at once instead.
//
// A Handle is safe for concurrent use. A Post costs a lock and an append to
// the agent's inbox, and sends its actor a message only when it was idle.
type Handle[I, V any] interface {
	// Name returns the name it has in logs and errors.
	Name() string

	// Post hands v over, blocking while the input queue is full. It
	// returns ctx.Err() if ctx ends first, [ErrClosed] after Close or
	// Stop, and the error of a check the agent makes of each item (such
	// as rate.ErrCost); in each case v was not accepted. Once Post returns
	// nil, v is the agent's: it comes out, or fails, exactly once, unless
	// Stop drops it first.
	Post(ctx context.Context, v I) error

	// TryPost hands v over if the input queue has room, and returns
	// [ErrFull] if not; otherwise it is Post. It never blocks.
	TryPost(v I) error

	// Close ends the input: later Posts return [ErrClosed], and the agent
	// finishes once everything it accepted is done. Every item whose Post
	// returned nil is taken in before the close. Close does not wait;
	// calling it again is harmless.
	Close()

	// Wait blocks until the agent has finished after Close, or was stopped
	// or failed, and everything it started has ended. It returns nil, the
	// first failure the agent saw (for a chain, each failed stage's error,
	// prefixed with its name, joined), [ErrStopped] after Stop, or
	// ctx.Err() if ctx ends first. Without Close it returns only when ctx
	// ends or the agent is stopped. It does not poll. Wait must not be
	// called from the agent's own sink or work: it would wait for itself.
	Wait(ctx context.Context) error

	// Done returns a channel that is closed when Wait would return at
	// once.
	Done() <-chan struct{}

	// Status returns a snapshot of the agent as it is between two
	// messages, at the cost of one actor round trip; once it has finished
	// or was stopped, its final snapshot, at no cost. It returns ctx.Err()
	// if ctx ends first or has already ended (the agent is then not
	// asked), and [ErrClosed] for an agent that ended without a final
	// status. Every status embeds a [Load]. Like Wait, it must not be
	// called from the agent's own sink (nor, for a chain, from a Tap or
	// sink of its stages): the agent answers between rounds, and the sink
	// runs in one, so it would wait for itself until ctx ends.
	Status(ctx context.Context) (V, error)

	// LogStatus writes the status to the runtime's logger as one
	// structured zerolog event at info level ("status", with the agent's
	// name), without waiting for it to be written: a Status call made
	// afterwards returns only after it has been. The status is one object
	// whatever the agent: its fields in snake_case (InFlight is in_flight),
	// those of an embedded struct such as the Load among them, durations
	// as zerolog writes them, an error as its text, and a demand nobody
	// throttles as "unbounded". A status type that implements
	// zerolog.LogObjectMarshaler is written its own way.
	LogStatus()

	// Stop ends the agent now: items not yet taken in are dropped, the
	// context of running work is cancelled and timers are disarmed. It
	// waits until every goroutine the agent started has returned, or
	// returns ctx.Err() if ctx ends first (work that ignores its context
	// runs on until it returns). It may be called from the agent's own
	// sink. For a graceful end, Close and Wait instead. Stop is
	// idempotent, and concurrent calls do not queue.
	Stop(ctx context.Context) error
}

// DefaultQueue is the input bound of an agent whose configuration leaves
// its Queue at zero.
const DefaultQueue = 64
