package main

import (
	"context"
	"fmt"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
)

// statusEvery is how often the display asks the chain for its status.
const statusEvery = 100 * time.Millisecond

// statuser is what the status poll needs of the chain.
type statuser interface {
	Status(ctx context.Context) (compose.Status, error)
}

// pollStatus sends the chain's status every interval until ctx ends. A
// status the chain cannot give (it has finished, say) is skipped.
func pollStatus(ctx context.Context, chain statuser, send func(statusMsg), every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if st, err := chain.Status(ctx); err == nil {
			send(statusMsg(st))
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
	}
}

// describe returns one line on a stage's status: what waits in it, what it
// is doing, and its limit.
func describe(st any) string {
	switch st := st.(type) {
	case rate.Status:
		return fmt.Sprintf("queued %3d   tokens %.2f/%d   limit %g keys/s   passed %d",
			st.Queued, st.Tokens, st.Burst, st.Rate, st.Passed)
	case parallel.Status:
		return fmt.Sprintf("queued %3d   in flight %d/%d   held %d   done %d",
			st.Queued, st.InFlight, st.Limit, st.Held, st.Done)
	case adaptive.Status:
		return fmt.Sprintf("queued %3d   in flight %d/%d   held %d   done %d   limit %d in [%d, %d], %s, %.1f keys/s",
			st.Queued, st.InFlight, st.Limit, st.Held, st.Done, st.Limit, st.Min, st.Max, st.View.Phase, st.View.Throughput)
	case buffer.Status:
		return fmt.Sprintf("queued %3d   line %d/%d   flushing %d   lines flushed %d",
			st.Queued, st.Pending, st.Size, st.Flushing, st.Flushed)
	}
	return fmt.Sprintf("%+v", st)
}
