package parallel

import (
	"context"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/batchwork"
	"github.com/evolvekit/evolve/internal/budget"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/meter"
)

// Work is what a parallel agent runs for each item, in a goroutine the
// runtime owns. ctx ends when the agent is stopped, when the item's
// [Config.Timeout] passes, or at the first failure under
// [Config.CancelOnError]; work should return soon after. An error or a
// panic makes a failed [Result].
type Work[In, Out any] func(ctx context.Context, in In) (Out, error)

// New starts a parallel agent on rt that runs work on each item posted and
// hands the results to sink, one at a time, on the agent's own goroutine (a
// slow sink slows the agent; nil discards results). Its Status is a
// [Status]. It returns an [ErrConfig] naming the setting when cfg is out of
// range or work or rt is nil, and agent.ErrClosed once rt has shut down.
func New[In, Out any](rt *agent.Runtime, cfg Config, work Work[In, Out], sink func(Result[Out])) (agent.Handle[In, Status], error) {
	if rt == nil {
		return nil, invalid("runtime must not be nil")
	}
	p, err := build(cfg, work)
	if err != nil {
		return nil, err
	}
	return p.New(rt, sink)
}

// Stage returns a parallel agent as one stage of a chain (see package
// compose): it runs work on at most cfg.Limit items at once and passes each
// result's value on, in input order unless cfg says Unordered. A failed item
// is not passed on: it is counted in its [Status] (Failed), and the first
// failure is the stage's error. It returns an [ErrConfig] naming the setting
// when cfg is out of range or work is nil.
func Stage[In, Out any](cfg Config, work Work[In, Out]) (agent.Stage[In, Out], error) {
	p, err := build(cfg, work)
	if err != nil {
		return agent.Stage[In, Out]{}, err
	}
	return p.Stage(), nil
}

// SetLimit changes the limit of the agent h, which [New] started, while it
// runs. Raising it starts waiting items at once; lowering it lets running
// work finish and starts nothing new until fewer than n are in flight. It
// returns an [ErrConfig] for n below 1, and agent.ErrClosed once the agent
// has ended. It does not wait for the change to take effect; a Status call
// made afterwards sees it.
func SetLimit[In any](h agent.Handle[In, Status], n int) error {
	if err := checkLimit(n); err != nil {
		return err
	}
	return core.Set(h, Limit(n))
}

// build describes the agent cfg and work make.
func build[In, Out any](cfg Config, work Work[In, Out]) (batchwork.Agent[State[In, Out], In, Out, Result[Out], Status], error) {
	s, err := NewState[In, Out](cfg)
	if err != nil {
		return batchwork.Agent[State[In, Out], In, Out, Result[Out], Status]{}, err
	}
	if work == nil {
		return batchwork.Agent[State[In, Out], In, Out, Result[Out], Status]{}, invalid("work must not be nil")
	}
	cfg = cfg.withDefaults()
	return batchwork.Agent[State[In, Out], In, Out, Result[Out], Status]{
		Name:        cfg.Name,
		State:       s,
		Evolve:      Evolve[In, Out],
		Step:        (*State[In, Out]).Step,
		StepDone:    (*State[In, Out]).stepDone,
		StepInput:   (*State[In, Out]).stepInput,
		StepDones:   (*State[In, Out]).stepDones,
		Queue:       cfg.Queue,
		Key:         cfg.Key,
		KeyQueue:    cfg.KeyQueue,
		Work:        work,
		Timeout:     cfg.Timeout,
		Result:      result[Out],
		Value:       value[Out],
		Seq:         func(r Result[Out]) uint64 { return r.Seq },
		DeadLetters: cfg.DeadLetters,
		Reserves:    true,
		Takes:       []agent.Msg{agent.Set[Limit]{}},
		Measure: func(v any) meter.Extra {
			st, _ := v.(Status)
			return meter.Extra{Limit: int64(st.Limit), Retried: int64(st.Retried)}
		},
		Share: share,
	}, nil
}

// share is how a parallel agent shares a chain's workers: its workers are
// its batches in flight, and its limit is set with a Limit.
var share = budget.Shares(func(st Status) budget.Reading {
	return budget.Reading{Queued: st.Queued, Busy: st.Batches, Done: st.Done, Limit: st.Limit}
}, func(n int) Limit { return Limit(n) })
