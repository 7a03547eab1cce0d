// Package bridge lets the machinery under internal/ reach what package
// agent keeps unexported: a runtime's actor system, clock and logger, the
// inside of an agent.Stage, and the agent.Load in a status. Package agent
// fills the hooks in when it is initialized, before any code of this
// module can call them; nothing outside this module can import them. It
// stands between agent and the machinery only: the other public packages
// reach the runtime's parts through the machinery, never through here.
//
// It exists because the types a user holds (agent.Runtime, agent.Stage)
// must live in package agent, while the machinery that runs them must be
// shared with compose and the agent packages without becoming agent's
// public API. Go's generics rule out hooks holding generic functions, so
// what crosses is non-generic: runtime parts, and values as any.
package bridge

import (
	"context"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/internal/meter"
	"github.com/evolvekit/evolve/internal/trace"
	"github.com/rs/zerolog"
)

// Parts is what the machinery needs of an agent.Runtime.
type Parts struct {
	System   *actor.ActorSystem
	Dispatch actor.Dispatcher
	Clock    Clock
	Log      zerolog.Logger
	// Adopt records a running agent so that Shutdown stops it; it returns
	// agent.ErrClosed once the runtime has shut down. Release forgets it.
	Adopt   func(Agent) error
	Release func(Agent)
	// ID returns an actor ID for a new agent, and Free takes back that of
	// an agent whose actor is gone, for a later one. IDs are reused because
	// protoactor's registry keeps the table of every one of its 32,768
	// shards that ever held an ID: fresh IDs would grow it, a few hundred
	// bytes a shard, until each had been used.
	ID   func() string
	Free func(id string)
	// Meter is where the agents publish their status as metrics; nil
	// without a meter provider.
	Meter *meter.Meter
	// Tracer makes the spans that follow items through the agents; nil
	// without a tracer provider.
	Tracer *trace.Tracer
}

// Clock is agent.Clock.
type Clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) (cancel func() bool)
}

// Agent is what a runtime needs of a running agent to shut it down: Halt
// asks it to stop without waiting, Stop waits until its workers have
// returned, Done is closed once its actor is gone too.
type Agent interface {
	Halt()
	Stop(ctx context.Context) error
	Done() <-chan struct{}
}

// The hooks package agent fills in.
var (
	// Runtime returns the parts of an *agent.Runtime.
	Runtime func(rt any) *Parts
	// StageOf returns what an agent.Stage holds (nil for the zero Stage).
	StageOf func(stage any) any
	// SetStage makes the *agent.Stage dst hold impl.
	SetStage func(dst any, impl any)
	// LoadOf returns the agent.Load a status value embeds, as any, and
	// whether it embeds one.
	LoadOf func(status any) (any, bool)
)
