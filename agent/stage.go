package agent

import (
	"context"
	"errors"
)

// Stage is an agent described but not yet running, seen as one step of a
// chain: it takes items of type I and emits values of type O. Agent packages
// make Stages (parallel.Stage, rate.Stage, buffer.Stage), package compose
// links them into chains, and [Stage.Start] runs one with its neighbours
// wired in.
//
// A Stage is a value: each Start runs a new agent. The zero Stage is not
// usable: its Start returns an error.
type Stage[I, O any] struct {
	name  string
	queue int
	start func(rt *Runtime, in Inlet, out Outlet[O]) (*Member[I], error)
}

// Inlet says where a running stage gives its input slots back.
type Inlet struct {
	// Demand takes the input slots the stage gives back, as demand for the
	// stage before it, on the stage's own goroutine. Nil gives them back to
	// [Member.Post], as a lone agent does.
	Demand func(n int)
}

// Outlet says where a running stage's values and its completion go.
type Outlet[O any] struct {
	// Pull is the demand the stage holds when it starts: the input bound of
	// whatever takes its values. Below 1 it means [Unbounded].
	Pull int
	// Deliver takes each batch of values the stage emits, in order, on the
	// stage's own goroutine. It returns how many it refused, whose demand
	// goes back to the stage, and an error that becomes the stage's (a sink
	// that panicked, say). Nil discards the values.
	Deliver func(values []O) (refused int, err error)
	// Ended is called once, on the stage's goroutine, after the stage has
	// finished or failed and after its last Deliver. Nil does nothing.
	Ended func()
}

// SinkOutlet returns an Outlet that hands each value to sink, one at a time,
// with unbounded demand. A panic in sink loses that value only and becomes
// the stage's error.
func SinkOutlet[O any](sink func(O)) Outlet[O] {
	return Outlet[O]{Deliver: sinkDeliver(sink)}
}

// NewStage returns the agent spec describes as a Stage. Its Sink is not used:
// the Outlet the Stage is started with decides where values go.
func NewStage[S, I, W, R, O, V any](spec Spec[S, I, W, R, O, V]) Stage[I, O] {
	start := func(rt *Runtime, in Inlet, out Outlet[O]) (*Member[I], error) {
		h, err := spawn(rt, spec, func(h *Handle[I, V]) ports[O] { return wired(h, in, out) })
		if err != nil {
			return nil, err
		}
		return &Member[I]{h: h, post: h.Post, tryPost: h.TryPost, feed: h.feed, refused: new(refusals)}, nil
	}
	return Stage[I, O]{name: spec.Name, queue: spec.Queue, start: start}
}

// Name returns the name the stage's agent will have.
func (s Stage[I, O]) Name() string { return s.name }

// Queue returns the bound of the stage's input queue: the demand the stage
// before it starts with.
func (s Stage[I, O]) Queue() int { return s.queue }

// Start runs the stage on rt, wired to in and out, and returns it. It returns
// the errors [Spawn] does, and one for the zero Stage.
func (s Stage[I, O]) Start(rt *Runtime, in Inlet, out Outlet[O]) (*Member[I], error) {
	if s.start == nil {
		return nil, errors.New("agent: the zero Stage cannot start")
	}
	return s.start(rt, in, out)
}

// MapIn returns a Stage that takes items of type I and turns each into the J
// that s takes with f, in the goroutine that posts or passes it on. An item f
// fails on (by an error or a panic) is refused: Post returns the error, and
// an item passed on by the stage before is dropped, its demand given back,
// and counted in the error [Member.Wait] returns.
func MapIn[I, J, O any](s Stage[J, O], f func(I) (J, error)) Stage[I, O] {
	start := func(rt *Runtime, in Inlet, out Outlet[O]) (*Member[I], error) {
		m, err := s.Start(rt, in, out)
		if err != nil {
			return nil, err
		}
		conv := func(v I) (J, error) { return convert(f, v) }
		return &Member[I]{
			h:       m.h,
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
			feed: func(items []I) { m.feed(admit(items, conv, m.refused, in.Demand)) },
		}, nil
	}
	return Stage[I, O]{name: s.name, queue: s.queue, start: start}
}

// MapOut returns a Stage that passes on f(v) for each value v that s emits,
// on the stage's goroutine. A value f declines (ok false) is not passed on
// and its demand goes back to the stage; a panic in f declines the value and
// becomes the stage's error.
func MapOut[I, O, P any](s Stage[I, O], f func(O) (P, bool)) Stage[I, P] {
	start := func(rt *Runtime, in Inlet, out Outlet[P]) (*Member[I], error) {
		deliver := out.Deliver
		if deliver == nil {
			deliver = sinkDeliver[P](nil)
		}
		return s.Start(rt, in, Outlet[O]{Pull: out.Pull, Ended: out.Ended, Deliver: func(values []O) (int, error) {
			kept, declined, err := keep(values, f)
			refused, err2 := deliver(kept)
			return declined + refused, errors.Join(err, err2)
		}})
	}
	return Stage[I, P]{name: s.name, queue: s.queue, start: start}
}

// convert runs f on v, turning a panic into a *PanicError.
func convert[I, J any](f func(I) (J, error), v I) (j J, err error) {
	if perr := protect(func() { j, err = f(v) }); perr != nil {
		return j, perr
	}
	return j, err
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

// keep maps values with f, dropping those it declines or panics on.
func keep[O, P any](values []O, f func(O) (P, bool)) (kept []P, declined int, err error) {
	kept = make([]P, 0, len(values))
	for _, v := range values {
		var p P
		var ok bool
		if perr := protect(func() { p, ok = f(v) }); perr != nil {
			if err == nil {
				err = perr
			}
			ok = false
		}
		if ok {
			kept = append(kept, p)
		} else {
			declined++
		}
	}
	return kept, declined, err
}

// wired returns the ports of a stage: in and out, with defaults for what they
// leave nil.
func wired[I, V, O any](h *Handle[I, V], in Inlet, out Outlet[O]) ports[O] {
	p := ports[O]{pull: out.Pull, deliver: out.Deliver, demand: in.Demand, upstream: in.Demand != nil, ended: out.Ended}
	if p.pull < 1 {
		p.pull = Unbounded
	}
	if p.deliver == nil {
		p.deliver = sinkDeliver[O](nil)
	}
	if p.demand == nil {
		p.demand = h.grant
	}
	return p
}
