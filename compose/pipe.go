package compose

import (
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/core"
)

// Pipe2 links two stages into one, left to right: the values a emits are
// the items b takes. a passes on no more than b's input queue holds, and
// earns more room only as b takes items out of it; a's completion closes b.
// Stages linked are a Stage too, so a longer chain is Pipe3, Pipe4, or
// Pipes nested: Pipe2(a, Pipe3(b, c, d)). Linking a zero Stage gives the
// zero Stage, which Start refuses.
func Pipe2[I, M, O any](a agent.Stage[I, M], b agent.Stage[M, O]) agent.Stage[I, O] {
	return core.Wrap(core.Link(core.Unwrap(a), core.Unwrap(b)))
}

// Pipe3 links three stages into one, left to right, as [Pipe2] links two.
func Pipe3[I, M, N, O any](a agent.Stage[I, M], b agent.Stage[M, N], c agent.Stage[N, O]) agent.Stage[I, O] {
	return Pipe2(a, Pipe2(b, c))
}

// Pipe4 links four stages into one, left to right, as [Pipe2] links two.
func Pipe4[I, M, N, P, O any](a agent.Stage[I, M], b agent.Stage[M, N], c agent.Stage[N, P], d agent.Stage[P, O]) agent.Stage[I, O] {
	return Pipe2(a, Pipe3(b, c, d))
}
