package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
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

// describe returns what a line says of a stage's status, a part each, the
// parts that matter most first: what waits in it and what it works on, its
// own state (its tokens, its limit, what the adaptive agent is doing, its
// open line), then what it has done and failed, and how much more the next
// stage lets it pass on. A narrow terminal drops the last parts whole (see
// fit), never one cut in the middle.
//
// A buffer's keys in flight are those of the line it is writing to the
// file: its second part calls them flushing.
func describe(st compose.AgentStatus) []string {
	working := fmt.Sprintf("%2d in flight", st.InFlight)
	if _, ok := st.Detail.(buffer.Status); ok {
		working = fmt.Sprintf("%2d flushing", st.InFlight)
	}
	parts := []string{fmt.Sprintf("%3d queued", st.Queued), working}
	parts = append(parts, detail(st.Detail)...)
	parts = append(parts, fmt.Sprintf("%d done", st.Done))
	if st.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", st.Failed))
	}
	return append(parts, "demand "+st.Demand.String())
}

// fit joins name and as many of parts, in order, as fit in w columns,
// sep between two parts.
func fit(name string, parts []string, sep string, w int) string {
	for n := len(parts); n > 0; n-- {
		line := name + " " + strings.Join(parts[:n], sep)
		if n == 1 || ansi.StringWidth(line) <= w {
			return cut(line, w)
		}
	}
	return cut(name, w)
}

// detail returns what a stage's own status says beyond its agent.Load: a
// rate agent's tokens and rate, a parallel agent's limit and the results it
// holds, what an adaptive agent is doing, a buffer agent's open line and
// the lines flushed. It is empty for a status of another kind.
func detail(d any) []string {
	switch d := d.(type) {
	case rate.Status:
		return []string{fmt.Sprintf("%.2f/%d tokens", d.Tokens, d.Burst), fmt.Sprintf("%g keys/s", d.Rate)}
	case parallel.Status:
		return []string{fmt.Sprintf("limit %d", d.Limit), fmt.Sprintf("%d held", d.Held)}
	case adaptive.Status:
		parts := []string{doing(d)}
		if d.View.Throughput > 0 {
			parts = append(parts, fmt.Sprintf("%.1f keys/s", d.View.Throughput))
		}
		return append(parts, fmt.Sprintf("%d held", d.Held))
	case buffer.Status:
		return []string{fmt.Sprintf("line %d/%d", d.Pending, d.Size), fmt.Sprintf("%d flushed", d.Flushed)}
	}
	return nil
}

// phases says in words what each phase of the adaptive agent's controller
// is about.
var phases = map[string]string{
	"start":  "rising while keys wait",
	"search": "comparing limits near it",
	"hold":   "holding the best found",
	"probe":  "trying one more",
}

// doing says in words what the adaptive agent does with its limit. It
// moves its limit only while it is saturated, keys waiting and the limit in
// flight: otherwise something before it (the rate agent, or the typist) is
// the bottleneck, and the limit stays.
func doing(d adaptive.Status) string {
	what, ok := phases[d.View.Phase]
	if !ok {
		what = d.View.Phase
	}
	if d.Queued == 0 || d.InFlight < d.Limit {
		what = "kept: nothing waits for it"
	}
	return fmt.Sprintf("limit %d of %d–%d, %s", d.Limit, d.Min, d.Max, what)
}
