// Package batchwork is the agent whose Start effects each run user work on
// a batch of items, one after another, each with its own deadline: what the
// parallel and adaptive agents share beyond their state, down to how an
// agent of either kind is started on its own or made a stage.
package batchwork

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/budget"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/meter"
	"github.com/evolvekit/evolve/internal/safe"
	"github.com/evolvekit/evolve/internal/trace"
)

// Agent describes an agent that runs Work on its items: S is its state, In
// the items, Out what Work returns for one, R the result it emits for one
// (parallel.Result[Out]), V its status.
type Agent[S, In, Out, R, V any] struct {
	Name   string
	State  S
	Evolve agent.Evolve[S]
	// Step is Evolve in place, or nil (see core.Spec).
	Step func(s *S, m agent.Msg, fx []agent.Effect) []agent.Effect
	// StepDone is Step for a Done, or nil (see core.Spec).
	StepDone func(s *S, d *agent.Done[[]R], fx []agent.Effect) []agent.Effect
	// StepDones is StepDone for the Dones of a round, or nil (see
	// core.Spec).
	StepDones func(s *S, ds []agent.Done[[]R], fx []agent.Effect) []agent.Effect
	// StepInput is Step for an Input, or nil (see core.Spec).
	StepInput func(s *S, in *agent.Input[In], fx []agent.Effect) []agent.Effect
	Queue     int
	// Key and KeyQueue bound each key's items in the input queue (see
	// core.Spec).
	Key      any
	KeyQueue int
	// Work is the user's work on one item.
	Work func(ctx context.Context, in In) (Out, error)
	// Timeout, when positive, ends each item's context after it; an item
	// whose work returns after it fails with context.DeadlineExceeded.
	Timeout time.Duration
	// Result makes the result of the item at input position seq.
	Result func(seq uint64, v Out, err error) R
	// Value is what a stage passes on of a result: its value, if the work
	// succeeded.
	Value func(R) (Out, bool)
	// Seq returns the Seq of the item a result is of, for traces to
	// follow it (see package trace); nil follows none.
	Seq func(R) uint64
	// DeadLetters is the agent's own dead-letter sink, or nil.
	DeadLetters func(agent.DeadLetter)
	// Reserves says the agent keeps the pace of the rate stage before it
	// in a chain where its work starts: it takes items only as it can
	// start them, and each retry waits for a pass (see package
	// internal/pace).
	Reserves bool
	// Measure reads its status for its metrics (see core.Spec).
	Measure func(status any) meter.Extra
	// Share is how it shares a chain's workers (see core.Spec).
	Share *budget.Share
	// Takes are the Set messages its evolve takes (see core.Spec).
	Takes []agent.Msg
}

// New starts the agent on rt, on its own, with its results going to sink.
func (p Agent[S, In, Out, R, V]) New(rt *agent.Runtime, sink func(R)) (agent.Handle[In, V], error) {
	h, err := core.Spawn[In, V](rt, p.spec(), sink)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// Stage returns the agent as a stage that passes on the values of the
// results that succeeded.
func (p Agent[S, In, Out, R, V]) Stage() agent.Stage[In, Out] {
	return core.Wrap(core.MapOut(core.NewStage[In, V](p.spec()), p.Value))
}

// spec is the agent's spec: its Start effects carry a batch of items, whose
// ID is the input position of the first.
func (p Agent[S, In, Out, R, V]) spec() core.Spec[S, []In, []R, R] {
	r := p.runner()
	// reuse does the work on the batch of items whose first is at input
	// position seq, and returns their results: in spare, if it has room
	// for them, else in a new slice. The loop over the items is in this
	// frame rather than one of its own: the stack of a worker holds it
	// while the work runs, and a frame more takes thousands of workers'
	// stacks past their smallest size.
	reuse := func(ctx context.Context, seq uint64, items []In, spare []R) ([]R, error) {
		out := spare[:0]
		if cap(out) >= len(items) {
			out = out[:len(items)]
		} else {
			out = make([]R, len(items))
		}
		for i := 0; i < len(items); i++ {
			if err := r.runFrom(ctx, seq, items, out, &i); err != nil {
				var zero Out
				out[i] = r.result(seq+uint64(i), zero, err)
			}
		}
		return out, nil
	}
	return core.Spec[S, []In, []R, R]{
		Name:        p.Name,
		State:       p.State,
		Evolve:      p.Evolve,
		Step:        p.Step,
		StepDone:    p.StepDone,
		StepDones:   p.StepDones,
		StepInput:   p.StepInput,
		Queue:       p.Queue,
		Key:         p.Key,
		KeyQueue:    p.KeyQueue,
		DeadLetters: p.DeadLetters,
		Reserves:    p.Reserves,
		Measure:     p.Measure,
		Share:       p.Share,
		Takes:       p.Takes,
		Work: func(ctx context.Context, seq uint64, items []In) ([]R, error) {
			return reuse(ctx, seq, items, nil)
		},
		Reuse:    reuse,
		Recovers: true, // run fails the item whose work panicked, alone
		// The parallel and adaptive agents' evolve keeps no Done's results
		// and emits them in its round only, so their slices are reused.
		Recycle: recycle[R],
		Follow:  p.follow(),
	}
}

// recycle empties the results of a batch, so that they hold nothing, for
// the results of a later one.
// follow says how traces follow items through the agent: its work and its
// results by Seq.
func (p Agent[S, In, Out, R, V]) follow() trace.Follow[[]In, R] {
	if p.Seq == nil {
		return trace.Follow[[]In, R]{}
	}
	return trace.Follow[[]In, R]{Items: func(id uint64, w []In) (uint64, int) { return id, len(w) }, Seq: p.Seq}
}

func recycle[R any](rs []R) []R {
	clear(rs)
	return rs[:0]
}

// runner is what the work on a batch needs of an Agent: a pointer to it
// is handed from item to item, not the Agent and its State.
type runner[In, Out, R any] struct {
	name    string
	work    func(ctx context.Context, in In) (Out, error)
	timeout time.Duration
	result  func(seq uint64, v Out, err error) R
}

// runner returns the runner of p's work.
func (p Agent[S, In, Out, R, V]) runner() *runner[In, Out, R] {
	return &runner[In, Out, R]{name: p.Name, work: p.Work, timeout: p.Timeout, result: p.Result}
}

// runFrom does the work on items from index *i on, putting each result in
// out, until the last, or until an item's work panics: it then returns the
// panic as an error, *i at that item, which fails alone; the caller goes
// on from the next. So a batch pays for one deferred recover, not one per
// item. Once ctx has ended, the items not yet begun fail with its cause.
func (r *runner[In, Out, R]) runFrom(ctx context.Context, seq uint64, items []In, out []R, i *int) (err error) {
	defer safe.Recover(&err)
	w, _ := ctx.(*trace.Work) // the items' spans, when traced
	for ; *i < len(items); *i++ {
		at := seq + uint64(*i)
		// Err is nil until Done is closed, and costs an atomic load rather
		// than a receive that must not block.
		if ctx.Err() != nil {
			var zero Out
			out[*i] = r.result(at, zero, context.Cause(ctx))
			continue
		}
		if w != nil {
			out[*i] = r.traced(w, at, *i, items[*i])
			continue
		}
		v, err := r.run(ctx, at, items[*i])
		out[*i] = r.result(at, v, err)
	}
	return nil
}

// timed does the work on the item at seq, within the timeout. The item ran
// past its timeout when its deadline passed before the work returned and
// before ctx ended; it then fails with an error that Is
// context.DeadlineExceeded, joined to the work's own error, unless that
// already says so.
// run runs the work on one item, the item at seq, within the timeout.
func (r *runner[In, Out, R]) run(ctx context.Context, seq uint64, in In) (Out, error) {
	if r.timeout <= 0 {
		return r.work(ctx, in)
	}
	return r.timed(ctx, seq, in)
}

// traced runs the work on the i-th item of w, at seq, under a span of
// its attempt, which a panic in the work ends too.
func (r *runner[In, Out, R]) traced(w *trace.Work, seq uint64, i int, in In) R {
	ctx, span := w.Attempt(i)
	ended := false
	defer func() {
		if !ended { // the work panicked: runFrom makes the panic the item's error
			trace.End(span, errPanicked)
		}
	}()
	v, err := r.run(ctx, seq, in)
	ended = true
	trace.End(span, err)
	return r.result(seq, v, err)
}

// errPanicked is what the span of an attempt whose work panicked records.
var errPanicked = errors.New("the work panicked")

func (r *runner[In, Out, R]) timed(ctx context.Context, seq uint64, in In) (Out, error) {
	late := &lateError{name: r.name, seq: seq, timeout: r.timeout}
	ictx, cancel := context.WithTimeoutCause(ctx, r.timeout, late)
	defer cancel() // when the work panics
	v, err := r.work(ictx, in)
	cancel() // settles the cause: late only if the deadline came first
	if context.Cause(ictx) != error(late) || errors.Is(err, context.DeadlineExceeded) {
		return v, err
	}
	if err != nil {
		return v, fmt.Errorf("%w: %w", late, err)
	}
	return v, late
}

// lateError is the error of an item whose work ran past its timeout, and
// the cause of its context's end.
type lateError struct {
	name    string
	seq     uint64
	timeout time.Duration
}

// Error names the item and its timeout.
func (e *lateError) Error() string {
	return fmt.Sprintf("%s: item %d ran past its timeout of %v: %v", e.name, e.seq, e.timeout, context.DeadlineExceeded)
}

// Unwrap returns context.DeadlineExceeded.
func (e *lateError) Unwrap() error { return context.DeadlineExceeded }
