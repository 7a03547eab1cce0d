package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/promserve"
	"github.com/evolvekit/evolve/parallel"
)

// runner runs a strategy's jobs.
type runner interface {
	// tryPost hands j over if that needs no wait, and reports whether it did.
	tryPost(j job) bool
	// post hands j over, waiting while the runner is full.
	post(ctx context.Context, j job) error
	// limit returns the most jobs the runner lets run at once now; 0 means
	// it has no limit.
	limit(ctx context.Context) (int, error)
	// finish waits until every job handed over has returned, and returns
	// the first failure.
	finish(ctx context.Context) error
	// stop cancels the jobs still running and waits for them to return.
	stop(ctx context.Context) error
}

// strategy names a way of running the jobs and makes its runner.
type strategy struct {
	name  string
	about string // what it does, for the plot's titles
	start func(ctx context.Context, rt *agent.Runtime, w workload, m *meter) (runner, error)
}

// strategies returns the three strategies compared: naive, a fixed limit,
// adaptive.
func strategies(limit int, seed uint64) []strategy {
	return []strategy{
		{name: "naive", about: "a goroutine per job, started as it arrives", start: startNaive},
		{name: "fixed", about: fmt.Sprintf("a parallel agent, limit %d", limit),
			start: func(_ context.Context, rt *agent.Runtime, w workload, m *meter) (runner, error) {
				return startFixed(rt, limit, w, m)
			}},
		{name: "adaptive", about: "an adaptive agent, its limit learnt",
			start: func(_ context.Context, rt *agent.Runtime, w workload, m *meter) (runner, error) {
				return startAdaptive(rt, seed, w, m)
			}},
	}
}

// naive starts every job in a goroutine of its own as soon as it arrives.
type naive struct {
	ctx    context.Context // the jobs' context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	w      workload
	m      *meter
}

// startNaive returns a naive runner whose jobs run under ctx.
func startNaive(ctx context.Context, _ *agent.Runtime, w workload, m *meter) (runner, error) {
	n := &naive{w: w, m: m}
	n.ctx, n.cancel = context.WithCancel(ctx)
	return n, nil
}

// tryPost starts j at once.
func (n *naive) tryPost(j job) bool {
	began := n.m.begin()
	n.wg.Go(func() { n.m.end(j, began, n.w.do(n.ctx)) })
	return true
}

// post starts j at once.
func (n *naive) post(_ context.Context, j job) error {
	n.tryPost(j)
	return nil
}

// limit returns 0: naive has none.
func (n *naive) limit(context.Context) (int, error) { return 0, nil }

// finish waits for every job. A job returns soon after its context ends.
func (n *naive) finish(context.Context) error {
	n.wg.Wait()
	return n.m.failure()
}

// stop cancels the jobs and waits for them.
func (n *naive) stop(context.Context) error {
	n.cancel()
	n.wg.Wait()
	return nil
}

// pool runs jobs on an agent: a parallel agent with a fixed limit, or an
// adaptive one, whose status is a V.
type pool[V any] struct {
	h       agent.Handle[job, V]
	limitOf func(V) int // the agent's limit, read from its status
}

// work returns the agent's work on a job: count it, do it, count it done.
func work(w workload, m *meter) parallel.Work[job, struct{}] {
	return func(ctx context.Context, j job) (struct{}, error) {
		began := m.begin()
		err := w.do(ctx)
		m.end(j, began, err)
		return struct{}{}, err
	}
}

// startFixed returns a pool on a parallel agent that runs at most limit
// jobs at once.
func startFixed(rt *agent.Runtime, limit int, w workload, m *meter) (runner, error) {
	h, err := parallel.New(rt, parallel.Config{Name: "fixed", Limit: limit, Unordered: true}, work(w, m), nil)
	if err != nil {
		return nil, err
	}
	return pool[parallel.Status]{h: h, limitOf: func(st parallel.Status) int { return st.Limit }}, nil
}

// startAdaptive returns a pool on an adaptive agent with the default
// controller, its random source seeded with seed.
func startAdaptive(rt *agent.Runtime, seed uint64, w workload, m *meter) (runner, error) {
	h, err := adaptive.New(rt, adaptive.Config{Name: "adaptive", Unordered: true, Seed: seed}, work(w, m), nil)
	if err != nil {
		return nil, err
	}
	return pool[adaptive.Status]{h: h, limitOf: func(st adaptive.Status) int { return st.Limit }}, nil
}

// watch shows the agent on srv's live page, if srv is not nil.
func (p pool[V]) watch(srv *promserve.Server) { promserve.Watch(srv, p.h) }

// tryPost posts j if the agent's input queue has room.
func (p pool[V]) tryPost(j job) bool { return p.h.TryPost(j) == nil }

// limit returns the agent's limit now.
func (p pool[V]) limit(ctx context.Context) (int, error) {
	st, err := p.h.Status(ctx)
	if err != nil {
		return 0, err
	}
	return p.limitOf(st), nil
}

// post posts j, waiting while the agent's input queue is full.
func (p pool[V]) post(ctx context.Context, j job) error { return p.h.Post(ctx, j) }

// finish closes the agent's input and waits for every job.
func (p pool[V]) finish(ctx context.Context) error {
	p.h.Close()
	return p.h.Wait(ctx)
}

// stop stops the agent, cancelling the jobs still running.
func (p pool[V]) stop(ctx context.Context) error { return p.h.Stop(ctx) }
