package core

import (
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/cell"
)

// Spawn starts the agent spec describes on rt, on its own: it holds
// unbounded demand, its values go to sink (nil discards them) and its input
// slots back to its handle's Post. The caller has checked rt and spec. It
// returns agent.ErrClosed once rt has shut down.
func Spawn[I, V, S, W, R, O any](rt *agent.Runtime, spec Spec[S, W, R, O], sink func(O)) (*Agent[I, V], error) {
	return cell.Start[I, V](rt, spec, cell.Wiring[O]{Deliver: sinkDeliver(sink)})
}
