package agent

import (
	"context"
	"runtime/debug"
)

// safely calls run and turns a panic into a *PanicError carrying the stack.
func safely[W, R any](ctx context.Context, run func(context.Context, W) (R, error), w W) (r R, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &PanicError{Value: p, Stack: debug.Stack()}
		}
	}()
	return run(ctx, w)
}

// protect calls f and turns a panic into a *PanicError carrying the stack.
func protect(f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &PanicError{Value: p, Stack: debug.Stack()}
		}
	}()
	f()
	return nil
}
