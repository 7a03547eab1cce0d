// Package safe is the one place where a panic becomes an error: an
// *agent.PanicError carrying the panic's value and the stack of the
// goroutine that panicked. User work, sinks, conversions and evolve
// functions all run under it, so a panic in any of them reads the same.
package safe

import (
	"runtime/debug"

	"github.com/evolvekit/evolve/agent"
)

// Recover, deferred, turns a panic of the function that deferred it into
// an *agent.PanicError in *err, and lets the function return normally:
//
//	func run() (err error) {
//		defer safe.Recover(&err)
//		...
//	}
//
// It must be deferred itself, not called from a deferred function: only
// then does its recover stop the panic. Without a panic it leaves *err
// alone.
func Recover(err *error) {
	if p := recover(); p != nil {
		*err = Panic(p)
	}
}

// Panic returns the *agent.PanicError of p, a value recover returned, with
// the stack of the goroutine that panicked: for a deferred method that
// recovers itself, where Recover's error pointer does not fit.
func Panic(p any) error {
	return &agent.PanicError{Value: p, Stack: debug.Stack()}
}

// Do calls f and returns the *agent.PanicError its panic became, or nil.
func Do(f func()) (err error) {
	defer Recover(&err)
	f()
	return nil
}
