package rate

import (
	"context"
	"math"
	"sync"
	"sync/atomic"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/meter"
	"github.com/evolvekit/evolve/internal/trace"
	"github.com/rs/zerolog"
)

// New starts a rate agent on rt that lets the values posted to it through at
// cfg's rate and burst, and hands them to sink on the agent's own goroutine
// (a nil sink discards them). Its handle's Post and TryPost call
// [Config.Cost] on each value, in the caller's goroutine, and refuse a cost
// the bucket can never pay with an [ErrCost]; its Status is a [Status], with
// the bucket's tokens as of the instant the agent answers. It returns an
// [ErrConfig] naming the field of cfg at fault or a nil rt, and
// agent.ErrClosed once rt has shut down.
func New[T any](rt *agent.Runtime, cfg Config[T], sink func(T)) (agent.Handle[T, Status], error) {
	if rt == nil {
		return nil, configError("runtime must not be nil")
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	a, err := core.Spawn[Item[T], Status](rt, spec(cfg, itemKey(cfg.Key)), sink)
	if err != nil {
		return nil, err
	}
	h := &handle[T]{Agent: a, cost: cfg.Cost}
	h.burst.Store(int64(cfg.Burst))
	return h, nil
}

// Stage returns a rate agent as one stage of a chain (see package compose):
// it passes values on unchanged and in order, no faster than cfg's rate and
// burst allow. [Config.Cost] prices each value as it enters the stage: a
// value posted to a chain this stage heads is refused by Post with an
// [ErrCost]; one passed on by an earlier stage is dropped, counted, and
// reported by the chain's Wait. It returns an [ErrConfig] naming the field
// of cfg at fault.
func Stage[T any](cfg Config[T]) (agent.Stage[T, T], error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return agent.Stage[T, T]{}, err
	}
	if cfg.Cost == nil {
		// Every value costs 1: the stage takes the values as they are.
		return core.Wrap(core.NewStage[T, Status](spec(cfg, valueKey(cfg.Key)))), nil
	}
	price := func(v T) (Item[T], error) { return itemFor(cfg.Cost, v, cfg.Burst) }
	return core.Wrap(core.MapIn(core.NewStage[Item[T], Status](spec(cfg, itemKey(cfg.Key))), price)), nil
}

// SetLimit changes the rate and burst of the agent h, which [New] started,
// while it runs: the bucket refills at the old rate up to the instant the
// agent sees the change and at the new one from then on. It returns an
// [ErrConfig] naming the bad value, leaving the limit unchanged,
// agent.ErrClosed once the agent has ended, and an error for a handle that
// New did not return. It does not wait for the change to take effect.
//
// Costs posted after SetLimit returns are checked against the new burst. An
// item posted concurrently with a change that shrinks the burst may cost more
// than the new burst; the agent then charges it the full burst.
func SetLimit[T any](h agent.Handle[T, Status], l Limit) error {
	if err := l.check(); err != nil {
		return err
	}
	r, ok := h.(*handle[T])
	if !ok {
		return core.Set(h, l)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := core.Set(r.Agent, l); err != nil {
		return err
	}
	r.burst.Store(int64(l.Burst))
	return nil
}

// handle is a running rate agent: its Post and TryPost price each value
// before it is posted.
type handle[T any] struct {
	*core.Agent[Item[T], Status]
	cost func(T) float64

	mu    sync.Mutex   // orders SetLimit calls, so burst is the last one sent
	burst atomic.Int64 // the burst posted costs are checked against
}

// Post prices v and posts it, blocking while the input queue is full.
func (h *handle[T]) Post(ctx context.Context, v T) error {
	it, err := itemFor(h.cost, v, int(h.burst.Load()))
	if err != nil {
		return err
	}
	return h.Agent.Post(ctx, it)
}

// TryPost prices v and posts it if the input queue has room.
func (h *handle[T]) TryPost(v T) error {
	it, err := itemFor(h.cost, v, int(h.burst.Load()))
	if err != nil {
		return err
	}
	return h.Agent.TryPost(it)
}

// itemFor builds the Item for v, checking the cost cost gives it against
// burst; a nil cost makes every item cost 1.
func itemFor[T any](cost func(T) float64, v T, burst int) (Item[T], error) {
	if cost == nil {
		return Item[T]{Value: v}, nil
	}
	c := cost(v)
	if err := checkCost(c, burst); err != nil {
		return Item[T]{}, err
	}
	return Item[T]{Value: v, Cost: c}, nil
}

// spec describes the agent cfg (with its defaults filled in) makes; key,
// with a Key, is its key of the items its Post takes (see core.Spec).
func spec[T any](cfg Config[T], key any) core.Spec[State[T], struct{}, struct{}, T] {
	return core.Spec[State[T], struct{}, struct{}, T]{
		Name:      cfg.Name,
		State:     newState(cfg),
		Evolve:    Evolve[T],
		Step:      (*State[T]).step,
		StepInput: (*State[T]).stepInput,
		Queue:     cfg.Queue,
		Key:       key,
		KeyQueue:  cfg.KeyQueue,
		Paces:     true,
		Takes:     []agent.Msg{agent.Set[Limit]{}},
		Measure: func(v any) meter.Extra {
			st, _ := v.(Status)
			return meter.Extra{Tokens: st.Tokens, HasTokens: true}
		},
		Open: open(cfg.Shared),
	}
}

// itemKey returns the key of an Item, the key of its value, or nil.
func itemKey[T any](key func(T) string) any {
	if key == nil {
		return nil
	}
	return func(it Item[T]) string { return key(it.Value) }
}

// valueKey returns key as the key of the values a Post takes, or nil.
func valueKey[T any](key func(T) string) any {
	if key == nil {
		return nil
	}
	return key
}

// open returns the Open of an agent of the shared limit sh, nil for none:
// it joins the limit, whose grants come to the agent as Set messages, and
// passes the agent's reports of its use on.
func open(sh Shared) func(post func(agent.Msg) bool, _ zerolog.Logger, _ *trace.Line) (core.Port, error) {
	if sh == nil {
		return nil
	}
	return func(post func(agent.Msg) bool, _ zerolog.Logger, _ *trace.Line) (core.Port, error) {
		report, leave := sh.Join(func(l Limit) bool { return post(agent.Set[Limit]{Value: l}) })
		return core.Port{
			Send: func(e agent.Effect) bool {
				u, ok := e.(agent.Send[use])
				if ok {
					report(u.Value.waiting, u.Value.passed)
				}
				return ok
			},
			Close: leave,
		}, nil
	}
}

// checkCost returns an [ErrCost] if a bucket of the given burst can never
// pay c.
func checkCost(c float64, burst int) error {
	switch {
	case math.IsNaN(c):
		return costError("cost must be a number, got NaN")
	case c < 0:
		return costError("cost must not be negative, got %v", c)
	case c > float64(burst):
		return costError("cost %v exceeds burst %d", c, burst)
	}
	return nil
}
