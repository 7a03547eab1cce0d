package core

import (
	"context"
	"slices"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/budget"
	"github.com/evolvekit/evolve/internal/safe"
	"github.com/evolvekit/evolve/internal/slab"
)

// Plan describes the agents of a Stage with their types erased, first to
// last, for a driver other than the runtime: package sim runs a chain in
// virtual time from it, package replay plays a recording back through it.
// It holds what the runtime links: each agent's
// spec (as a Machine it can bring to life), its bound, whether it paces the
// agent after it or reserves passes of the one before, and the
// conversions (MapIn, MapOut) that values go through between neighbours.
//
// A Stage builds its Plan only when asked, so the runtime pays nothing for
// it. The zero Plan has no agents.
type Plan struct {
	// Agents are the stage's agents, first to last.
	Agents []PlanAgent
	// In holds the conversions an item goes through, in order, before the
	// first agent takes it: the MapIn functions of the stage.
	In []Convert
	// Out holds the conversions the last agent's values go through, in
	// order, before they leave the stage: its MapOut functions.
	Out []Convert
}

// PlanAgent is one agent of a Plan.
type PlanAgent struct {
	// Name, Queue, Paces and Reserves are those of the agent's Spec.
	Name            string
	Queue           int
	Paces, Reserves bool
	// Outside says the agent connects to something outside the runtime
	// (its Spec has Open), which only the runtime can do.
	Outside bool
	// Share is that of the agent's Spec: how it shares a budget's
	// workers, or nil when it does not.
	Share *budget.Share
	// Next holds the conversions, in order, between the values this agent
	// emits and the items of the agent after it: this agent's MapOut
	// functions, then that one's MapIn functions. The last agent has none
	// (see Plan.Out).
	Next []Convert
	// New returns a fresh Machine running the agent: its Spec's initial
	// State, Evolve and Work.
	New func() Machine
}

// Convert is a MapIn or MapOut function applied to a batch: Apply takes a
// batch of one type and returns a new batch of the next type holding the
// values it kept, in order, and how many it dropped. A drop gives its
// demand back to the agent that emitted the value.
//
// A batch is an agent.Emit of the values as an any: the Emit effect an
// agent returned, which a driver passes on as it is, with no copy made of
// its values, or a pointer to one made like it (see Batch and Values).
// Apply cuts the slices of values it returns, and the Emits that point to
// them, from slabs of its own (see package slab), so that a batch costs
// no box of its own, and is not safe for concurrent use.
type Convert struct {
	// Refuses is true for a MapIn function: the items it drops are refused,
	// which the stage it feeds counts and reports, and err is the first
	// reason. Otherwise (MapOut) a value declined is dropped silently, and
	// err is that of a panic, which becomes the emitting agent's error.
	Refuses bool
	Apply   func(batch any) (kept any, dropped int, err error)
}

// Machine is an agent of a Plan run by a driver of its own, one message at
// a time: it keeps the agent's state and builds and reads the messages and
// effects whose types are the agent's. It is not safe for concurrent use.
//
// A step allocates little beyond what evolve does: the slice of effects is
// the step before's, and a message Input and Done return costs the box it
// is held in as an agent.Msg, which StepInput and StepDone spare.
type Machine interface {
	// Step evolves the state with m, already stamped, and returns the
	// effects evolve asked for, in a slice that the next Step reuses: the
	// driver is done with them before it steps again.
	Step(m agent.Msg) []agent.Effect
	// Input returns the Input message that brings the items of batch (see
	// Convert), which evolve may keep (see agent.Input).
	Input(at time.Time, batch any) agent.Msg
	// StepInput is Step with the Input message that brings the items of
	// batch, as Input and then Step would: handed to the spec's StepInput,
	// when it has one for the agent's item type, with no message boxed.
	StepInput(at time.Time, batch any) []agent.Effect
	// Start reads e as a Start of the agent's work type and runs its work
	// at once, with ctx, keeping the result (the zero result for an agent
	// without work; a panic becomes an *agent.PanicError) for Done. It
	// returns the Start's ID, and false when e is no such Start.
	Start(ctx context.Context, e agent.Effect) (id uint64, ok bool)
	// Done returns the Done message of the work id that Start ran, and
	// forgets its result.
	Done(at time.Time, id uint64) agent.Msg
	// StepDone is Step with the Done message of the work id that Start
	// ran, which it forgets, as Done and then Step would: handed to the
	// spec's StepDone, when it has one, as the runtime hands it, with no
	// message boxed.
	StepDone(at time.Time, id uint64) []agent.Effect
	// Recycle takes back the result of the Done that Done returned last,
	// for the work of a later Start to reuse (see the Spec's Recycle and
	// Reuse), once the step that took it is over and the driver is done
	// with what that step emitted: a batch of values that a conversion
	// copied, say, rather than one still on its way to the next agent.
	Recycle()
	// Emitted reads e as an Emit of the agent's value type, a batch (see
	// Convert): how many values it carries; false when e is no such Emit.
	Emitted(e agent.Effect) (n int, ok bool)
	// Status asks evolve for the agent's status, as the runtime does for
	// a final status, leaving the state as it was; false when evolve
	// gives none.
	Status(at time.Time) (any, bool)
	// Messages returns a zero message of each type the agent takes beyond
	// those of package agent: its Input, its Done and the Set and Event
	// messages of its Spec's Takes, for a driver that reads recorded
	// messages back.
	Messages() []agent.Msg
}

// Plan returns the description of s's agents; the zero Stage has none.
// Each call builds it anew.
func (s Stage[I, O]) Plan() Plan {
	if s.plan == nil {
		return Plan{}
	}
	return s.plan()
}

// Sharing returns the positions of the agents that share a budget's
// workers, those with a Share, first to last.
func (p Plan) Sharing() []int {
	var at []int
	for i, a := range p.Agents {
		if a.Share != nil {
			at = append(at, i)
		}
	}
	return at
}

// planOf describes the lone agent spec describes, whose status is a V.
func planOf[I, V, S, W, R, O any](spec Spec[S, W, R, O]) Plan {
	return Plan{Agents: []PlanAgent{{
		Name: spec.Name, Queue: spec.Queue, Paces: spec.Paces, Reserves: spec.Reserves, Outside: spec.Open != nil,
		Share: spec.Share,
		New: func() Machine {
			stepIn, _ := spec.StepInput.(func(*S, *agent.Input[I], []agent.Effect) []agent.Effect)
			return &machine[S, I, W, R, O, V]{spec: spec, state: spec.Initial(), results: make(map[uint64]outcome[R]), stepIn: stepIn}
		},
	}}}
}

// Batch returns a batch (see Convert) of values, an Emit cut from heads:
// a pointer, which an any holds with no allocation of its own.
func Batch[T any](heads *slab.Slab[agent.Emit[T]], values []T) any {
	h := append(heads.Cut(1), agent.Emit[T]{Values: values})
	return &h[0]
}

// Values returns the values of batch, an agent.Emit[T] or a pointer to
// one (see Convert). It panics on anything else, as a type assertion does.
func Values[T any](batch any) []T {
	if p, ok := batch.(*agent.Emit[T]); ok {
		return p.Values
	}
	return batch.(agent.Emit[T]).Values
}

// linked describes a followed by b: a's values, through a's Out and b's
// In, are the items of b's first agent.
func linked(a, b Plan) Plan {
	agents := slices.Concat(a.Agents, b.Agents)
	last := &agents[len(a.Agents)-1]
	last.Next = slices.Concat(a.Out, b.In)
	return Plan{Agents: agents, In: a.In, Out: b.Out}
}

// mappedIn describes p with f applied to its items first.
func mappedIn[I, J any](p Plan, f func(I) (J, error)) Plan {
	var values slab.Slab[J]
	var heads slab.Slab[agent.Emit[J]]
	p.In = slices.Concat([]Convert{{Refuses: true, Apply: func(batch any) (any, int, error) {
		items := Values[I](batch)
		out := values.Cut(len(items))
		var first error
		for _, v := range items {
			j, err := convert(f, v)
			if err != nil {
				if first == nil {
					first = err
				}
				continue
			}
			out = append(out, j)
		}
		return Batch(&heads, out), len(items) - len(out), first
	}}}, p.In)
	return p
}

// mappedOut describes p with f applied to its values last.
func mappedOut[O, P any](p Plan, f func(O) (P, bool)) Plan {
	var cut slab.Slab[P]
	var heads slab.Slab[agent.Emit[P]]
	p.Out = slices.Concat(p.Out, []Convert{{Apply: func(batch any) (any, int, error) {
		values := Values[O](batch)
		kept, declined, err := keep(cut.Cut(len(values)), values, f, nil)
		return Batch(&heads, kept), declined, err
	}}})
	return p
}

// machine runs one agent's spec outside the runtime.
type machine[S, I, W, R, O, V any] struct {
	spec    Spec[S, W, R, O]
	state   S
	results map[uint64]outcome[R]
	fx      []agent.Effect                                           // the effects of the step before, for the next to reuse
	handed  R                                                        // the result of the last Done, until Recycle takes it back
	done    agent.Done[R]                                            // the Done StepDone hands the spec's StepDone
	stepIn  func(*S, *agent.Input[I], []agent.Effect) []agent.Effect // the spec's StepInput, of this item type
	in      agent.Input[I]                                           // the Input StepInput hands stepIn
	spares  []R                                                      // results Recycle emptied, for the work of later Starts
}

// maxSpares bounds the results a machine keeps for reuse.
const maxSpares = 64

// outcome is what a piece of work returned.
type outcome[R any] struct {
	r   R
	err error
}

func (m *machine[S, I, W, R, O, V]) Step(msg agent.Msg) []agent.Effect {
	fx := m.fx
	clear(fx)  // holds nothing the effects of the step before carried
	m.fx = nil // a step that panics leaves no slice to share
	m.fx = m.spec.Apply(&m.state, msg, fx[:0])
	return m.fx
}

func (m *machine[S, I, W, R, O, V]) Input(at time.Time, batch any) agent.Msg {
	return agent.Input[I]{At: at, Items: Values[I](batch)}
}

func (m *machine[S, I, W, R, O, V]) StepInput(at time.Time, batch any) []agent.Effect {
	if m.stepIn == nil {
		return m.Step(m.Input(at, batch))
	}
	m.in = agent.Input[I]{At: at, Items: Values[I](batch)}
	fx := m.fx
	clear(fx)
	m.fx = nil
	m.fx = m.stepIn(&m.state, &m.in, fx[:0])
	m.in = agent.Input[I]{} // the items are evolve's to keep, not the machine's
	return m.fx
}

func (m *machine[S, I, W, R, O, V]) Start(ctx context.Context, e agent.Effect) (uint64, bool) {
	s, ok := e.(agent.Start[W])
	if !ok {
		return 0, false
	}
	var o outcome[R]
	switch {
	case m.spec.Reuse != nil:
		var spare R
		if n := len(m.spares); n > 0 {
			spare, m.spares = m.spares[n-1], m.spares[:n-1]
		}
		o.r, o.err = safe.Reuse(ctx, m.spec.Reuse, s.ID, s.Work, spare)
	case m.spec.Work != nil:
		o.r, o.err = safe.Work(ctx, m.spec.Work, s.ID, s.Work)
	}
	m.results[s.ID] = o
	return s.ID, true
}

func (m *machine[S, I, W, R, O, V]) Done(at time.Time, id uint64) agent.Msg {
	return m.take(at, id)
}

// take returns the Done of the work id that Start ran, at instant at, and
// forgets its result, which it keeps for Recycle.
func (m *machine[S, I, W, R, O, V]) take(at time.Time, id uint64) agent.Done[R] {
	o := m.results[id]
	delete(m.results, id)
	m.handed = o.r
	return agent.Done[R]{At: at, ID: id, Result: o.r, Err: o.err}
}

func (m *machine[S, I, W, R, O, V]) StepDone(at time.Time, id uint64) []agent.Effect {
	if m.spec.StepDone == nil {
		return m.Step(m.Done(at, id))
	}
	m.done = m.take(at, id)
	fx := m.fx
	clear(fx)
	m.fx = nil
	m.fx = m.spec.StepDone(&m.state, &m.done, fx[:0])
	m.done = agent.Done[R]{} // evolve keeps no part of a message
	return m.fx
}

func (m *machine[S, I, W, R, O, V]) Recycle() {
	var zero R
	r := m.handed
	m.handed = zero
	if m.spec.Recycle != nil && m.spec.Reuse != nil && len(m.spares) < maxSpares {
		m.spares = append(m.spares, m.spec.Recycle(r))
	}
}

func (m *machine[S, I, W, R, O, V]) Emitted(e agent.Effect) (int, bool) {
	em, ok := e.(agent.Emit[O])
	return len(em.Values), ok
}

func (m *machine[S, I, W, R, O, V]) Messages() []agent.Msg {
	return append([]agent.Msg{agent.Input[I]{}, agent.Done[R]{}}, m.spec.Takes...)
}

func (m *machine[S, I, W, R, O, V]) Status(at time.Time) (v any, ok bool) {
	_ = safe.Do(func() {
		_, fx := m.spec.Evolve(m.state, agent.Query{At: at})
		for _, e := range fx {
			if r, is := e.(agent.Reply[V]); is {
				v, ok = r.Value, true
			}
		}
	})
	return v, ok
}
