package cell

import (
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/meter"
)

// meters is what a cell counts for its agent's metrics (see
// agent.WithMeterProvider), on the actor's goroutine: the items taken in
// and passed on, and when the items still in the input queue came, oldest
// first, for their wait; when it last published, and the timer that
// brings it a round to publish the last, if one is armed. A cell whose
// agent has no metrics counts nothing but the values passed on, which
// costs an addition.
type meters struct {
	now       time.Time // the instant of the round being taken in
	in, out   int64
	waits     meter.Waits
	published time.Time
	republish func() bool // cancels the armed timer; nil when none is
}

// publishEvery is how often at most an agent publishes its status: asking
// evolve for it costs a round more than the round itself when rounds are
// small, and what is published is read only by a collection, every few
// seconds at most.
const publishEvery = time.Millisecond

// republish is what the timer armed by publishSoon sends its cell: a round
// whose end publishes.
type republish struct{}

// arrived notes n items that came into the input queue at instant at.
func (c *cell[S, I, W, R, O, V]) arrived(at time.Time, n int) {
	if c.h.gauges != nil {
		c.in += int64(n)
		c.waits.Arrived(at, n)
	}
}

// left records the wait of the n oldest items in the input queue, which
// left it at instant now, the round's (evolve gave their slots back), the
// queue being first in, first out.
func (c *cell[S, I, W, R, O, V]) left(n int, now time.Time) {
	if g := c.h.gauges; g != nil {
		c.waits.Left(g, n, now)
	}
}

// publishSoon publishes the agent's status at the end of a round if the
// last publication is publishEvery old; otherwise it arms a timer (unless
// one is armed) that brings the agent a round once it is. So what the
// instruments read is at most about publishEvery behind the agent, however
// many rounds it takes in meanwhile, and then idles.
func (c *cell[S, I, W, R, O, V]) publishSoon(now time.Time) {
	if c.h.gauges == nil || c.over {
		return // an agent that is over is observed no more once its actor stops
	}
	wait := publishEvery - now.Sub(c.published)
	if wait <= 0 {
		c.publish(now)
		return
	}
	if c.republish == nil {
		h := c.h
		c.republish = h.rt.Clock.AfterFunc(wait, func() { h.post(republish{}) })
	}
}

// unarm cancels the timer publishSoon armed, if it is armed.
func (c *cell[S, I, W, R, O, V]) unarm() {
	if c.republish != nil {
		c.republish()
		c.republish = nil
	}
}

// publish hands the agent's metrics its status as it stands at now.
func (c *cell[S, I, W, R, O, V]) publish(now time.Time) {
	g := c.h.gauges
	if g == nil {
		return
	}
	c.published = now
	v, ok := c.statusAt(now)
	if !ok {
		return
	}
	l := LoadOf(v)
	s := meter.Snapshot{In: c.in, Out: c.out, Failed: int64(l.Failed), Queued: int64(l.Queued),
		InFlight: int64(l.InFlight), Demand: int64(l.Demand), Unbounded: l.Demand >= agent.Unbounded/2}
	if c.spec.Measure != nil {
		x := c.spec.Measure(v)
		s.Limit, s.Retried, s.Dropped, s.Tokens, s.HasTokens, s.Lines = x.Limit, x.Retried, x.Dropped, x.Tokens, x.HasTokens, x.Lines
	}
	g.Publish(s)
}

// unmeter forgets the agent's metrics, once it has ended: it is observed no
// more.
func (h *Agent[I, V]) unmeter() {
	if h.gauges != nil {
		h.gauges.Close()
	}
}
