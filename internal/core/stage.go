package core

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/bridge"
	"github.com/evolvekit/evolve/internal/cell"
	"github.com/evolvekit/evolve/internal/safe"
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

// Link returns a followed by b: the values a's last agent emits are the
// items b's first agent takes, as much as b's input bound allows, and a's
// completion closes b. When a's last agent keeps a pace and b's first
// reserves passes, b's work starts at a's pace: a's last agent has no
// demand but the room b's first opens for the items it can start as they
// come, grants the passes b's first reserves, and finishes only after b's
// first has ended.
func Link[I, M, O any](a Stage[I, M], b Stage[M, O]) Stage[I, O] {
	if a.start == nil || b.start == nil {
		return Stage[I, O]{}
	}
	paced := a.paces && b.reserves
	start := func(rt *agent.Runtime, in Inlet, out Outlet[O]) (Run[I], error) {
		// b starts first, so it is there when a's last agent passes it
		// values; it gives its input slots back as demand for that agent,
		// and reserves passes of it, which exists before any value flows.
		var before atomic.Pointer[puller]
		// The demand comes from b's first agent, on its goroutine, with
		// its relay; the values from a's last, with its.
		var head *Member[M]
		bin := Inlet{Demand: func(n int) { (*before.Load()).pullVia(n, head.relayOf()) }, DeadLetters: in.DeadLetters, Record: in.Record.past(a.Plan)}
		if paced {
			bin.Reserve = func(n int) {
				if !(*before.Load()).reserve(n, false) {
					head.pass(n) // the pacer has ended: its pace with it
				}
			}
			// b's input slots count only for its own metrics; the pacer's
			// demand is the room b opens (see package pace).
			bin.Demand = func(int) {}
			bin.Room = func(n int) { (*before.Load()).pullVia(n, head.relayOf()) }
		}
		rb, err := b.start(rt, bin, out)
		if err != nil {
			return Run[I]{}, err
		}
		head = rb.Head
		var from atomic.Pointer[cell.Relay]
		feed := func(values []M) (int, error) {
			head.feed(values, from.Load())
			return 0, nil
		}
		aout := Outlet[M]{Pull: b.first, Deliver: feed, Ended: head.Close, Gather: true}
		if paced {
			aout.Paced, aout.Grant = true, head.pass
		}
		ra, err := a.start(rt, in, aout)
		if err != nil {
			StopAll(context.Background(), rb.Members)
			return Run[I]{}, err
		}
		last := ra.last
		from.Store(last.relayOf())
		before.Store(&last)
		if paced {
			head.WhenDone(func() { last.reserve(0, true) })
			// Now that b's first can reach the pacer, it may open room there.
			head.paced()
		}
		return Run[I]{Head: ra.Head, Members: append(ra.Members, rb.Members...), last: rb.last}, nil
	}
	return Stage[I, O]{name: a.name, first: a.first, bound: a.bound + b.bound, paces: b.paces, reserves: a.reserves, start: start,
		plan: func() Plan { return linked(a.Plan(), b.Plan()) }}
}

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

// MapIn returns a Stage that takes items of type I and turns each into the J
// that s takes with f, in the goroutine that posts or passes it on. An item f
// fails on (by an error or a panic) is refused: Post returns the error, and
// an item passed on by the stage before is dropped, its demand given back,
// and counted in the error the stage's Wait returns.
func MapIn[I, J, O any](s Stage[J, O], f func(I) (J, error)) Stage[I, O] {
	if s.start == nil {
		return Stage[I, O]{}
	}
	start := func(rt *agent.Runtime, in Inlet, out Outlet[O]) (Run[I], error) {
		r, err := s.start(rt, in, out)
		if err != nil {
			return Run[I]{}, err
		}
		m := r.Head
		conv := func(v I) (J, error) { return convert(f, v) }
		giveBack := in.Demand // the demand the items refused took
		if in.Room != nil {
			giveBack = in.Room
		}
		head := &Member[I]{
			h:       m.h,
			status:  m.status,
			refused: m.refused,
			post: func(ctx context.Context, v I) error {
				j, err := conv(v)
				if err != nil {
					return err
				}
				return m.post(ctx, j)
			},
			tryPost: func(v I) error {
				j, err := conv(v)
				if err != nil {
					return err
				}
				return m.tryPost(j)
			},
			feed: func(items []I, r *cell.Relay) { m.feed(admit(items, conv, m.refused, giveBack), r) },
		}
		members := append([]Runner{head}, r.Members[1:]...)
		return Run[I]{Head: head, Members: members, last: r.last}, nil
	}
	return Stage[I, O]{name: s.name, first: s.first, bound: s.bound, paces: s.paces, reserves: s.reserves, start: start,
		plan: func() Plan { return mappedIn(s.Plan(), f) }}
}

// MapOut returns a Stage that passes on f(v) for each value v that s emits,
// in the stage's rounds. A value f declines (ok false) is not passed on
// and its demand goes back to the stage; a panic in f declines the value and
// becomes the stage's error.
func MapOut[I, O, P any](s Stage[I, O], f func(O) (P, bool)) Stage[I, P] {
	if s.start == nil {
		return Stage[I, P]{}
	}
	start := func(rt *agent.Runtime, in Inlet, out Outlet[P]) (Run[I], error) {
		deliver := out.Deliver
		if deliver == nil {
			deliver = sinkDeliver[P](nil)
		}
		var scratch []P // the kept values of one delivery, reused: deliver keeps no slice
		return s.start(rt, in, Outlet[O]{Pull: out.Pull, Ended: out.Ended, Paced: out.Paced, Grant: out.Grant, Gather: out.Gather, Deliver: func(values []O) (int, error) {
			kept, declined, err := keep(scratch[:0], values, f)
			refused, err2 := deliver(kept)
			clear(kept) // let go of what the values hold
			scratch = kept[:0]
			return declined + refused, errors.Join(err, err2)
		}})
	}
	return Stage[I, P]{name: s.name, first: s.first, bound: s.bound, paces: s.paces, reserves: s.reserves, start: start,
		plan: func() Plan { return mappedOut(s.Plan(), f) }}
}

// convert runs f on v, turning a panic into a *PanicError.
func convert[I, J any](f func(I) (J, error), v I) (j J, err error) {
	defer safe.Recover(&err)
	return f(v)
}

// admit converts items with f, recording the ones it refuses and giving
// their demand back.
func admit[I, J any](items []I, f func(I) (J, error), r *refusals, demand func(int)) []J {
	out := make([]J, 0, len(items))
	for _, v := range items {
		j, err := f(v)
		if err != nil {
			r.add(err)
			continue
		}
		out = append(out, j)
	}
	if n := len(items) - len(out); n > 0 && demand != nil {
		demand(n)
	}
	return out
}

// keep appends to dst the values f maps values to, dropping those it
// declines or panics on.
func keep[O, P any](dst []P, values []O, f func(O) (P, bool)) (kept []P, declined int, err error) {
	kept = dst
	// One protected loop for all the values; a panic declines its value,
	// and the loop goes on from the next one.
	for i := 0; i < len(values); i++ {
		perr := safe.Do(func() {
			for ; i < len(values); i++ {
				if p, ok := f(values[i]); ok {
					kept = append(kept, p)
				} else {
					declined++
				}
			}
		})
		if perr != nil {
			declined++
			if err == nil {
				err = perr
			}
		}
	}
	return kept, declined, err
}

// wired returns the wiring of the agent named name that a stage runs,
// from in and out.
func wired[O any](name string, in Inlet, out Outlet[O]) cell.Wiring[O] {
	return cell.Wiring[O]{Pull: out.Pull, Deliver: out.Deliver, Demand: in.Demand, Ended: out.Ended, Dead: in.DeadLetters,
		Reserve: in.Reserve, Room: in.Room, Grant: out.Grant, Paced: out.Paced, Gather: out.Gather, Tape: in.Record.open(name)}
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

// refusals counts the items a stage refused to take in, and keeps the first
// reason.
type refusals struct {
	mu    sync.Mutex
	n     int
	first error
}

func (r *refusals) add(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	if r.first == nil {
		r.first = err
	}
}

// err describes the refusals, or returns nil if there were none.
func (r *refusals) err(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == 0 {
		return nil
	}
	return fmt.Errorf("agent %s: refused %d items passed on to it, the first because: %w", name, r.n, r.first)
}
