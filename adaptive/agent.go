package adaptive

import (
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/batchwork"
	"github.com/evolvekit/evolve/internal/budget"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/meter"
	"github.com/evolvekit/evolve/parallel"
)

// New starts an adaptive agent on rt: a parallel agent whose limit its
// [Controller] chooses as work completes. It runs work on each item posted,
// at most the current limit at once, and hands each parallel.Result to
// sink, one at a time, on the agent's own goroutine (a slow sink slows the
// agent; nil discards results), in input order unless cfg says Unordered.
// Its Status is a [Status]. It returns an [ErrConfig] naming the setting
// when cfg is out of range or work or rt is nil, and agent.ErrClosed once
// rt has shut down.
func New[In, Out any](rt *agent.Runtime, cfg Config, work parallel.Work[In, Out], sink func(parallel.Result[Out])) (agent.Handle[In, Status], error) {
	if rt == nil {
		return nil, invalid("runtime must not be nil")
	}
	p, err := build(cfg, work)
	if err != nil {
		return nil, err
	}
	return p.New(rt, sink)
}

// Stage returns an adaptive agent as one stage of a chain (see package
// compose): it runs work on at most the limit its controller chooses and
// passes each result's value on, in input order unless cfg says Unordered.
// A failed item is not passed on: it is counted in its [Status] (Failed),
// and the first failure is the stage's error. It returns an [ErrConfig]
// naming the setting when cfg is out of range or work is nil.
func Stage[In, Out any](cfg Config, work parallel.Work[In, Out]) (agent.Stage[In, Out], error) {
	p, err := build(cfg, work)
	if err != nil {
		return agent.Stage[In, Out]{}, err
	}
	return p.Stage(), nil
}

// SetLimit sets the limit of the agent h, which [New] started, by hand
// while it runs, brought within the agent's Min and Max; the controller
// carries on from there. Raising it starts waiting items at once; lowering
// it lets running work finish. It returns an [ErrConfig] for n below 1 and
// agent.ErrClosed once the agent has ended. It does not wait for the change
// to take effect; a Status call made afterwards sees it.
func SetLimit[In any](h agent.Handle[In, Status], n int) error {
	if n < 1 {
		return invalid("limit must be at least 1, got %d", n)
	}
	return core.Set(h, Limit(n))
}

// build describes the agent cfg and work make.
func build[In, Out any](cfg Config, work parallel.Work[In, Out]) (batchwork.Agent[State[In, Out], In, Out, parallel.Result[Out], Status], error) {
	var p batchwork.Agent[State[In, Out], In, Out, parallel.Result[Out], Status]
	s, err := NewState[In, Out](cfg)
	if err != nil {
		return p, err
	}
	if work == nil {
		return p, invalid("work must not be nil")
	}
	p.Name, p.State, p.Evolve, p.Step, p.Queue = cfg.name(), s, Evolve[In, Out], (*State[In, Out]).step, cfg.queue()
	p.Key, p.KeyQueue = cfg.Key, cfg.keyQueue()
	p.Work, p.Timeout, p.DeadLetters = work, cfg.Timeout, cfg.DeadLetters
	p.Reserves = true
	p.Takes = []agent.Msg{agent.Set[Limit]{}}
	p.Measure = func(v any) meter.Extra {
		st, _ := v.(Status)
		return meter.Extra{Limit: int64(st.Limit), Retried: int64(st.Retried)}
	}
	p.Share = share
	p.Result = func(seq uint64, v Out, err error) parallel.Result[Out] {
		return parallel.Result[Out]{Seq: seq, Value: v, Err: err}
	}
	p.Value = func(r parallel.Result[Out]) (Out, bool) { return r.Value, r.Err == nil }
	p.Seq = func(r parallel.Result[Out]) uint64 { return r.Seq }
	return p, nil
}

// share is how an adaptive agent shares a chain's workers: as the parallel
// agent it embeds reads, its limit set with a Limit, which its controller
// carries on from.
var share = budget.Shares(func(st Status) budget.Reading {
	return budget.Reading{Queued: st.Queued, Busy: st.Batches, Done: st.Done, Limit: st.Limit}
}, func(n int) Limit { return Limit(n) })
