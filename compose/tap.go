package compose

import (
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/core"
)

// Tap returns s, with f called on each value s emits, in order, in the
// stage's rounds (one call over before the next), before the value is
// passed on. It is for watching a
// chain (a display, a counter): f must be quick and must not wait on the
// chain. A panic in f drops that value and becomes the stage's error.
func Tap[I, O any](s agent.Stage[I, O], f func(O)) agent.Stage[I, O] {
	return core.Wrap(core.MapOut(core.Unwrap(s), func(v O) (O, bool) {
		f(v)
		return v, true
	}))
}
