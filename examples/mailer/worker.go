package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/remote"
	"github.com/rs/zerolog"
)

// stageName is the remote stage's name on the master's node: what workers
// ask for.
const stageName = "send"

// work makes this process a worker of the campaign at cfg.master: it sends
// each email it is given to the email's mail server until the campaign has
// finished (nil), ctx ends (it leaves gracefully, handing back what it
// holds: nil), or the master goes away or cannot be reached (an error that
// says so). That it lost its master and rejoins it goes to stderr.
func work(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	name := cfg.name
	if name == "" {
		name = fmt.Sprintf("worker-%d", os.Getpid())
	}
	s := newSender(name, cfg.slots, cfg.creds)
	defer s.close()
	var sent atomic.Int64
	fmt.Fprintf(stdout, "mailer: worker %s: joining the master at %s, to send %d emails at once\n", name, cfg.master, cfg.slots)
	send := func(ctx context.Context, e email) (receipt, error) {
		r, err := s.send(ctx, e)
		if err == nil {
			sent.Add(1)
		}
		return r, err
	}
	log := zerolog.New(zerolog.SyncWriter(stderr)).Level(zerolog.WarnLevel).With().Timestamp().Str("worker", name).Logger()
	wcfg := remote.WorkerConfig{Master: cfg.master, Stage: stageName, Slots: cfg.slots, Listen: cfg.listen, TLS: cfg.creds, Log: log}
	var err error
	if cfg.items {
		// The master's emails come from a durable queue: each with its key
		// and ticket, which the receipt keeps.
		err = remote.Work(ctx, wcfg, durable.Map(send))
	} else {
		err = remote.Work(ctx, wcfg, send)
	}
	if err != nil {
		return asFlagError(err)
	}
	why := "the campaign has finished"
	if ctx.Err() != nil {
		why = "left, handing back the emails it held"
	}
	fmt.Fprintf(stdout, "mailer: worker %s: %s; it sent %d emails\n", name, why, sent.Load())
	return nil
}
