package core

import (
	"github.com/evolvekit/evolve/internal/cell"
	"github.com/evolvekit/evolve/internal/spec"
)

// Spec describes an agent to the machinery: its state, its evolve and the
// ways to step it in place (see the package doc, Stepping), its work, its
// queue, and what it shares, measures and takes. Its fields are documented
// where it is defined, in package spec, which the runtime (package cell)
// and this package's Plan both read.
type Spec[S, W, R, O any] = spec.Spec[S, W, R, O]

// Port is what an agent's Spec.Open connected it to (see spec.Port).
type Port = spec.Port

// Agent is one running agent, the agent.Handle[I, V] that [Spawn] returns
// and an agent package's handle may embed (see cell.Agent).
type Agent[I, V any] = cell.Agent[I, V]
