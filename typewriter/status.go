package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
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
	Done() <-chan struct{}
}

// pollStatus sends the chain's status every interval until ctx ends or the
// chain is done; the last status it sends is then the chain's final one. A
// status the chain cannot give is skipped.
func pollStatus(ctx context.Context, chain statuser, send func(statusMsg), every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		done := isDone(chain)
		if st, err := chain.Status(ctx); err == nil {
			send(statusMsg(st))
		}
		if done {
			return
		}
		select {
		case <-t.C:
		case <-chain.Done():
		case <-ctx.Done():
			return
		}
	}
}

// isDone reports whether chain is done, without waiting.
func isDone(chain statuser) bool {
	select {
	case <-chain.Done():
		return true
	default:
		return false
	}
}

// describe returns one line on a stage's status, from its agent.Load but
// for what only its kind of agent has: what waits in it and what it works
// on, then its own state (its tokens, its limit, ...), then what it has
// done and failed, and how much more the next stage lets it pass on. The
// Load's first fields and the extras come first, so a narrow terminal cuts
// the counts.
func describe(st compose.AgentStatus) string {
	parts := []string{fmt.Sprintf("queued %3d", st.Queued), fmt.Sprintf("in flight %2d", st.InFlight)}
	if d := detail(st.Detail); d != "" {
		parts = append(parts, d)
	}
	parts = append(parts, fmt.Sprintf("done %d", st.Done), fmt.Sprintf("failed %d", st.Failed), "demand "+demand(st.Demand))
	return strings.Join(parts, "  ")
}

// demand spells a demand: a number, or "unbounded" when nothing throttles
// the stage. As agent.Load says, an unthrottled demand starts at
// agent.Unbounded and goes down by one per value passed on, so any demand
// of agent.Unbounded/2 or more is unbounded; logs write it the same way.
func demand(n int) string {
	if n >= agent.Unbounded/2 {
		return "unbounded"
	}
	return strconv.Itoa(n)
}

// detail returns what a stage's own status says beyond its agent.Load: a
// rate agent's tokens and rate, a parallel or adaptive agent's limit and the
// results it holds, a buffer agent's open line and the lines flushed. It is
// empty for a status of another kind.
func detail(d any) string {
	switch d := d.(type) {
	case rate.Status:
		return fmt.Sprintf("tokens %.2f/%d  limit %g keys/s", d.Tokens, d.Burst, d.Rate)
	case parallel.Status:
		return fmt.Sprintf("limit %d  held %d", d.Limit, d.Held)
	case adaptive.Status:
		return fmt.Sprintf("limit %d in [%d, %d], %s, %.1f keys/s  held %d",
			d.Limit, d.Min, d.Max, d.View.Phase, d.View.Throughput, d.Held)
	case buffer.Status:
		return fmt.Sprintf("line %d/%d  lines flushed %d", d.Pending, d.Size, d.Flushed)
	}
	return ""
}
