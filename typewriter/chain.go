package main

import (
	"context"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/internal/promserve"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
)

// stages are the first two stages of the chain: the rate agent and the agent
// that works on each key. They are made before the output file is touched,
// so a configuration they refuse leaves the file alone.
type stages struct {
	limit agent.Stage[rune, rune]
	work  agent.Stage[rune, rune]
}

// watch is what a display sees of a running chain: each key as the rate
// agent lets it through, and each line once it is in the file. Both are
// called on an agent's goroutine and must be quick; either may be nil.
type watch struct {
	passed  func(rune)
	written func([]rune)
}

// newStages makes the rate stage and the work stage cfg asks for.
func newStages(cfg config) (stages, error) {
	limit, err := rate.Stage(rate.Config[rune]{Rate: cfg.rate, Burst: 1})
	if err != nil {
		return stages{}, err
	}
	work, err := workStage(cfg)
	if err != nil {
		return stages{}, err
	}
	return stages{limit: limit, work: work}, nil
}

// workStage returns a parallel agent with cfg's limit, or for -p auto an
// agent that learns its limit.
func workStage(cfg config) (agent.Stage[rune, rune], error) {
	if cfg.parallel.auto {
		return adaptiveStage(typeKey(cfg.workDelay))
	}
	return parallel.Stage(parallel.Config{Limit: cfg.parallel.n}, typeKey(cfg.workDelay))
}

// start runs the chain on rt: keys go through the rate and work stages to a
// buffer agent whose flush appends each line to out.
func (s stages) start(rt *agent.Runtime, cfg config, out *output, w watch) (agent.Handle[rune, compose.Status], error) {
	limit := s.limit
	if w.passed != nil {
		limit = compose.Tap(limit, w.passed)
	}
	lines, err := buffer.Stage(buffer.Config[rune]{Size: cfg.buffer}, appendLine(cfg.flushDelay, out))
	if err != nil {
		return nil, err
	}
	h, err := compose.Start(rt, compose.Pipe3(limit, s.work, lines), w.written, compose.WithName("typewriter"))
	if err == nil {
		promserve.Watch(cfg.live, h)
	}
	return h, err
}

// typeKey is the work on one key: it takes delay, then passes the key on.
func typeKey(delay time.Duration) func(context.Context, rune) (rune, error) {
	return func(ctx context.Context, k rune) (rune, error) {
		if err := pause(ctx, delay); err != nil {
			return 0, err
		}
		return k, nil
	}
}

// appendLine is the flush of a line: it waits delay, then appends the line
// to out.
func appendLine(delay time.Duration, out *output) func(context.Context, []rune) error {
	return func(ctx context.Context, line []rune) error {
		if err := pause(ctx, delay); err != nil {
			return err
		}
		return out.appendLine(line)
	}
}

// pause waits d, or returns ctx.Err() if ctx ends first.
func pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
