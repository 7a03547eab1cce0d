package remote

import (
	"context"

	"github.com/evolvekit/evolve/remote/internal/node"
	"github.com/evolvekit/evolve/remote/internal/worker"
)

// Work makes this process a worker of the remote stage cfg names: it
// registers with the master, pulls items whenever it has free slots, runs
// work on each (at most cfg.Slots at once) and sends the results back,
// several to a message when the work is quick. A panic in work fails that
// item with an *agent.PanicError's text. A worker that loses its master
// rejoins it, as the package doc says under Failures: the items it held
// are given back (their work sees its context end), and it takes new ones.
//
// Work returns nil once the master says the stage has finished, or once
// ctx ends: then the worker leaves gracefully, handing back the items it
// holds (the work running on them sees its context end at once, and what
// it returns then is not sent, but for a success). It returns an error
// wrapping ErrMasterGone when the master goes away first and does not come
// back within cfg.Rejoin, and one wrapping ErrUnreachable, naming the
// address, when it cannot reach the master, the TLS handshake with it
// fails (saying which side refused which certificate), or it is not
// registered within cfg.Connect (a stage not found, which a master's node
// may not run yet as it starts, is looked for again until then); and, with cfg.EndWhenWedged, one wrapping
// ErrWedged once every slot has run one task for longer than the master's
// lease.
//
// Work returns at most cfg.Grace after ctx ends, or after the stage
// finished or the master went (or, should the master take longer to
// acknowledge that the worker leaves, once it has, within cfg.Connect),
// and at most half a second more for its node to close, even if the
// master stopped answering or a work call ignores its context: such a
// call is abandoned, to run on in its goroutine until it returns, its
// result dropped, and Work's error wraps ErrAbandoned and names its item.
func Work[I, O any](ctx context.Context, cfg WorkerConfig, work func(ctx context.Context, in I) (O, error)) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	if work == nil {
		return invalid("work must not be nil")
	}
	cfg = cfg.withDefaults()
	creds, err := node.Credentials(cfg.TLS, cfg.AllowInsecure, cfg.addrs()...)
	if err != nil {
		return err
	}
	return worker.Run(ctx, worker.Config{
		Master: cfg.Master, Stage: cfg.Stage, Slots: cfg.Slots, Prefetch: cfg.Prefetch, Tags: cfg.Tags,
		Listen: cfg.Listen, Advertise: cfg.Advertise, Append: cfg.Codec.Append, Decode: cfg.Codec.Decode, Connect: cfg.Connect,
		Rejoin: cfg.Rejoin, Grace: cfg.Grace, Health: cfg.Health, EndWhenWedged: cfg.EndWhenWedged, TLS: creds, Log: cfg.Log,
		MaxMessage: cfg.MaxMessage, Traces: cfg.TracerProvider,
	}, work)
}
