package parallel

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/evolvekit/evolve/agent"
)

// Batch is the work one agent.Start hands a worker: Items, whose input
// positions start at Seq, to be worked on one after another. A batch holds
// one item unless the work is quick (see [Config.Run]).
type Batch[In any] struct {
	Seq   uint64
	Items []In
}

// Run does w on each of b's items in turn and returns one [Result] per
// item, in order, with its Seq. A panic in w fails that item alone, with an
// *agent.PanicError. Once ctx is cancelled the items not yet begun fail with
// ctx's error. It is what a worker of a parallel agent runs for one Start;
// its error is always nil.
func (w Work[In, Out]) Run(ctx context.Context, b Batch[In]) ([]Result[Out], error) {
	out := make([]Result[Out], len(b.Items))
	done := ctx.Done()
	for i, in := range b.Items {
		out[i].Seq = b.Seq + uint64(i)
		if i > 0 {
			select {
			case <-done:
				out[i].Err = ctx.Err()
				continue
			default:
			}
		}
		out[i].Value, out[i].Err = w.call(ctx, in)
	}
	return out, nil
}

// call runs w on in, turning a panic into an *agent.PanicError.
func (w Work[In, Out]) call(ctx context.Context, in In) (v Out, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &agent.PanicError{Value: p, Stack: debug.Stack()}
		}
	}()
	return w(ctx, in)
}

// results returns the results of the batch f that m reports, one per item
// in order. An item the batch returned no result for fails with m's error,
// or with an error saying so.
func results[Out any](m agent.Done[[]Result[Out]], f flight) []Result[Out] {
	rs := m.Result
	whole := len(rs) == f.n
	for i := 0; whole && i < len(rs); i++ {
		whole = rs[i].Seq == f.id+uint64(i)
	}
	if whole {
		return rs
	}
	out := make([]Result[Out], f.n)
	for i := range out {
		seq := f.id + uint64(i)
		switch {
		case i < len(rs) && rs[i].Seq == seq:
			out[i] = rs[i]
		case m.Err != nil:
			out[i] = Result[Out]{Seq: seq, Err: m.Err}
		default:
			out[i] = Result[Out]{Seq: seq, Err: fmt.Errorf("parallel: the batch from %d returned no result for item %d", f.id, seq)}
		}
	}
	return out
}

// Simulated returns w in the form the simulator (package agent/sim) takes
// work in: [Work.Run] with a context that is never cancelled. The
// simulator draws one service time per Start, so a parallel agent it runs
// should take one item at a time (Config.Run 1).
func (w Work[In, Out]) Simulated() func(Batch[In]) ([]Result[Out], error) {
	return func(b Batch[In]) ([]Result[Out], error) { return w.Run(context.Background(), b) }
}
