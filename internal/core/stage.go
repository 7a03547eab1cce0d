package core

import (
	"context"
	"errors"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/bridge"
	"github.com/evolvekit/evolve/internal/cell"
	"github.com/evolvekit/evolve/internal/trace"
)

// Stage is one agent, or several linked, described but not yet running: it
// takes items of type I and its last agent emits values of type O. It is
// what an agent.Stage holds. The zero Stage cannot start.
type Stage[I, O any] struct {
	name  string // its first agent's
	first int    // its first agent's input bound
	bound int    // the sum of its agents' input bounds
	// paces says its last agent keeps a pace (Spec.Paces); reserves that
	// its first agent reserves passes (Spec.Reserves).
	paces, reserves bool
	start           func(rt *agent.Runtime, in Inlet, out Outlet[O]) (Run[I], error)
	plan            func() Plan // describes its agents (see Plan), when asked
}

// Inlet says where a running stage gives its input slots back.
type Inlet struct {
	// Demand takes the input slots the stage gives back, as demand for the
	// stage before it, in the stage's rounds. Nil gives them back to
	// its first agent's Post, as a lone agent does.
	Demand func(n int)
	// DeadLetters takes the dead letters of the stage's agents that have
	// no sink of their own, on their goroutines. Nil drops them.
	DeadLetters func(agent.DeadLetter)
	// Reserve takes the passes the stage's first agent reserves (see
	// package pace), on its goroutine, for the pacer before it. Nil
	// grants them at once.
	Reserve func(n int)
	// Room takes the room the stage's first agent opens for the items of
	// the pacer before it (see package pace), on its goroutine: the
	// pacer's demand, where Demand then only counts the input slots given
	// back. Nil drops it.
	Room func(n int)
	// Record is where the stage's agents record the messages their evolve
	// takes and the effects it returns; the zero Recording records none.
	Record Recording
}

// Outlet says where a running stage's values and its completion go.
type Outlet[O any] struct {
	// Pull is the demand the stage holds when it starts: the input bound of
	// whatever takes its values. Below 1 it means agent.Unbounded.
	Pull int
	// Deliver takes each batch of values the stage emits, in order, on the
	// stage's own goroutine. It returns how many it refused, whose demand
	// goes back to the stage, and an error that becomes the stage's (a sink
	// that panicked, say). Nil discards the values. It must not keep the
	// slice once it returns: the caller may reuse it.
	Deliver func(values []O) (refused int, err error)
	// Ended is called once, in the stage's rounds, after the stage has
	// finished or failed, or said it drained (see package pace), and after its last
	// Deliver. Nil does nothing.
	Ended func()
	// Paced says that whatever takes the values reserves passes of the
	// stage's last agent, which keeps a pace, and gives it demand only for
	// the items it can start as they come (see package pace): Pull is
	// then ignored, and the stage starts with no demand. Grant takes the
	// passes that agent grants, on its goroutine.
	Paced bool
	Grant func(n int)
	// Gather lets the stage's last agent deliver what one round of its
	// messages emitted at once, at the end of the round, rather than one
	// Deliver per Emit: for an outlet that feeds another agent, whose
	// demand already counts the values.
	Gather bool
	// Hand takes the span contexts of the values, in step with them, when
	// whatever takes them is traced (see package trace); nil otherwise.
	Hand *trace.Hand
}

// SinkOutlet returns an Outlet that hands each value to sink, one at a time,
// with unbounded demand. A panic in sink loses that value only and becomes
// the stage's error.
func SinkOutlet[O any](sink func(O)) Outlet[O] {
	return Outlet[O]{Deliver: sinkDeliver(sink)}
}

// Run is a started stage: its first agent, its last, and all of them, first
// to last.
type Run[I any] struct {
	Head    *Member[I]
	Members []Runner
	last    puller
}

// puller is the last agent of a running stage, as the stage after it sees
// it: it takes demand, and reservations of passes if it keeps a pace.
type puller interface {
	pullVia(n int, r *cell.Relay)
	reserve(n int, last bool) bool
	relayOf() *cell.Relay
}

// Runner is a running agent of a chain, whatever its types.
type Runner interface {
	Name() string
	Close()
	Wait(ctx context.Context) error
	Done() <-chan struct{}
	// Status returns the agent's status snapshot, and the Load in it.
	Status(ctx context.Context) (any, agent.Load, error)
	LogStatus()
	Halt()
	Stop(ctx context.Context) error
	// WhenDone calls f once the agent is done, at once if it is.
	WhenDone(f func())
}

// NewStage returns the agent spec describes as a Stage: it takes items of
// type I and answers queries with a V.
func NewStage[I, V, S, W, R, O any](spec Spec[S, W, R, O]) Stage[I, O] {
	start := func(rt *agent.Runtime, in Inlet, out Outlet[O]) (Run[I], error) {
		h, err := cell.Start[I, V](rt, spec, wired(spec.Name, in, out))
		if err != nil {
			return Run[I]{}, err
		}
		m := &Member[I]{h: h, status: erased(h.Status), post: h.Post, tryPost: h.TryPost, feed: h.Feed, refused: new(refusals)}
		return Run[I]{Head: m, Members: []Runner{m}, last: m}, nil
	}
	return Stage[I, O]{name: spec.Name, first: spec.Queue, bound: spec.Queue, paces: spec.Paces, reserves: spec.Reserves, start: start,
		plan: func() Plan { return planOf[I, V](spec) }}
}

// Start runs the stage on rt, wired to in and out. It returns an error for
// the zero Stage, and agent.ErrClosed once rt has shut down.
func (s Stage[I, O]) Start(rt *agent.Runtime, in Inlet, out Outlet[O]) (Run[I], error) {
	if s.start == nil {
		return Run[I]{}, errors.New("the zero Stage cannot start")
	}
	return s.start(rt, in, out)
}

// Bound returns the sum of the input bounds of the stage's agents.
func (s Stage[I, O]) Bound() int { return s.bound }

// First returns the input bound of the stage's first agent.
func (s Stage[I, O]) First() int { return s.first }

// Zero reports whether s is the zero Stage.
func (s Stage[I, O]) Zero() bool { return s.start == nil }

// StopAll halts every agent of members, then waits for each.
func StopAll(ctx context.Context, members []Runner) error {
	for _, m := range members {
		m.Halt()
	}
	var errs []error
	for _, m := range members {
		errs = append(errs, m.Stop(ctx))
	}
	return errors.Join(errs...)
}

// wired returns the wiring of the agent named name that a stage runs,
// from in and out.
func wired[O any](name string, in Inlet, out Outlet[O]) cell.Wiring[O] {
	return cell.Wiring[O]{Pull: out.Pull, Deliver: out.Deliver, Demand: in.Demand, Ended: out.Ended, Dead: in.DeadLetters,
		Reserve: in.Reserve, Room: in.Room, Grant: out.Grant, Paced: out.Paced, Gather: out.Gather, Hand: out.Hand, Tape: in.Record.open(name)}
}

// erased returns status, a Status of a V, as one of an any.
func erased[V any](status func(context.Context) (V, error)) func(context.Context) (any, error) {
	return func(ctx context.Context) (any, error) {
		v, err := status(ctx)
		if err != nil {
			return nil, err
		}
		return v, nil
	}
}

// Wrap returns s as the agent.Stage a program holds.
func Wrap[I, O any](s Stage[I, O]) agent.Stage[I, O] {
	var out agent.Stage[I, O]
	if s.start != nil {
		bridge.SetStage(&out, s)
	}
	return out
}

// Unwrap returns what an agent.Stage holds: the zero Stage for the zero
// agent.Stage.
func Unwrap[I, O any](s agent.Stage[I, O]) Stage[I, O] {
	impl, _ := bridge.StageOf(s).(Stage[I, O])
	return impl
}
