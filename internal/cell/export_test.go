package cell

import (
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/safe"
	"github.com/evolvekit/evolve/internal/spec"
)

// SpawnForTest starts the agent s describes on its own, with its values
// handed to sink one at a time, a panic in sink losing that value only and
// becoming the agent's error, as core.Spawn does; a nil sink discards them.
func SpawnForTest[I, V, S, W, R, O any](rt *agent.Runtime, s spec.Spec[S, W, R, O], sink func(O)) (*Agent[I, V], error) {
	var deliver func([]O) (int, error)
	if sink != nil {
		deliver = func(values []O) (int, error) {
			var first error
			for _, v := range values {
				if err := safe.Do(func() { sink(v) }); err != nil && first == nil {
					first = err
				}
			}
			return 0, first
		}
	}
	return Start[I, V](rt, s, Wiring[O]{Deliver: deliver})
}

// RunningForTest counts the agent's workers that have not returned.
func RunningForTest[I, V any](h *Agent[I, V]) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.running
}

// WorkersForTest counts the worker goroutines the agent has ever started.
func WorkersForTest[I, V any](h *Agent[I, V]) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.workers
}
