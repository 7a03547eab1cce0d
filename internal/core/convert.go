package core

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/cell"
	"github.com/evolvekit/evolve/internal/safe"
	"github.com/evolvekit/evolve/internal/trace"
)

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
			feed: func(items []I, r *cell.Relay) { m.feed(admit(items, conv, m.refused, giveBack, m.h.Hand()), r) },
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
		return s.start(rt, in, Outlet[O]{Pull: out.Pull, Ended: out.Ended, Paced: out.Paced, Grant: out.Grant, Gather: out.Gather, Hand: out.Hand, Deliver: func(values []O) (int, error) {
			kept, declined, err := keep(scratch[:0], values, f, out.Hand)
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
// their demand back, and keeps hand, when it holds the items' span
// contexts, in step with the items it takes: f runs once on each item,
// traced or not.
func admit[I, J any](items []I, f func(I) (J, error), r *refusals, demand func(int), hand *trace.Hand) []J {
	out := make([]J, 0, len(items))
	for i, v := range items {
		j, err := f(v)
		if err != nil {
			r.add(err)
			continue
		}
		out = append(out, j)
		hand.Keep(i)
	}
	hand.Kept(len(items))
	if n := len(items) - len(out); n > 0 && demand != nil {
		demand(n)
	}
	return out
}

// keep appends to dst the values f maps values to, dropping those it
// declines or panics on, and keeps hand, when it holds the values' span
// contexts, in step with them: f runs once on each value, traced or not.
func keep[O, P any](dst []P, values []O, f func(O) (P, bool), hand *trace.Hand) (kept []P, declined int, err error) {
	kept = dst
	// One protected loop for all the values; a panic declines its value,
	// and the loop goes on from the next one.
	for i := 0; i < len(values); i++ {
		perr := safe.Do(func() {
			for ; i < len(values); i++ {
				if p, ok := f(values[i]); ok {
					kept = append(kept, p)
					hand.Keep(i)
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
	hand.Kept(len(values))
	return kept, declined, err
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
