package core

import (
	"context"
	"runtime/debug"

	"github.com/evolvekit/evolve/agent"
)

// safely runs work and turns a panic into an *agent.PanicError carrying the
// stack.
func safely[W, R any](ctx context.Context, work func(context.Context, uint64, W) (R, error), id uint64, w W) (r R, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &agent.PanicError{Value: p, Stack: debug.Stack()}
		}
	}()
	return work(ctx, id, w)
}

// protect calls f and turns a panic into an *agent.PanicError carrying the
// stack.
func protect(f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &agent.PanicError{Value: p, Stack: debug.Stack()}
		}
	}()
	f()
	return nil
}
