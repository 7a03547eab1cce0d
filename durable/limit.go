package durable

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/evolvekit/evolve/durable/internal/grant"
	"github.com/evolvekit/evolve/rate"
	"github.com/nats-io/nats.go/jetstream"
)

// Limit returns the rate limit named name, of r tokens a second with
// bursts of burst, that every process reaching this queue's NATS servers
// shares: give it to a rate stage as rate.Config.Shared, in each process,
// and the stages of all of them together let through at most burst +
// r·t items in any window of length t (see Limits in the package doc for
// what that rests on, and what it costs). The first process to open a
// limit sets its rate and burst, kept with the queue's streams; Limit
// returns an ErrConfig for a name that is not letters, digits, '-' and
// '_', a rate or burst out of range, or one that differs from the limit's
// own.
func (q *Queue[T]) Limit(name string, r float64, burst int) (rate.Shared, error) {
	switch {
	case !names.MatchString(name):
		return nil, invalid("limit name %q must be letters, digits, '-' and '_'", name)
	case !(r > 0) || math.IsInf(r, 1):
		return nil, invalid("limit %s: rate must be a positive number, got %v", name, r)
	case burst < 1:
		return nil, invalid("limit %s: burst must be at least 1, got %d", name, burst)
	}
	ctx, cancel := context.WithTimeout(context.Background(), q.cfg.ConnectTimeout)
	defer cancel()
	kv, err := grant.Open(ctx, q.js, q.cfg.Name+"_limits", q.replicas, name, r, burst)
	var m *grant.Mismatch
	switch {
	case errors.As(err, &m):
		return nil, invalid("limit %s is %v a second with bursts of %d on the queue's servers; this process asked for %v and %d", name, m.Rate, m.Burst, r, burst)
	case err != nil:
		return nil, fmt.Errorf("durable: limit %s of queue %s: %w", name, q.cfg.Name, err)
	}
	return &limit{kv: kv, name: name, rate: r, burst: burst}, nil
}

// limit is a Limit: what its processes' shares are drawn from.
type limit struct {
	kv    jetstream.KeyValue
	name  string
	rate  float64
	burst int
}

// Join connects one rate agent to the limit: a goroutine of its own asks
// for its share and renews it, until leave lets it go.
func (l *limit) Join(set func(rate.Limit) bool) (use func(waiting, passed int), leave func()) {
	cfg := grant.Config{ID: rand.Uint64()>>1 | 1, Rate: l.rate, Burst: l.burst, Period: grant.DefaultPeriod, Margin: grant.DefaultMargin}
	d := grant.Start(l.kv, l.name, cfg, func(g grant.Limit) bool {
		return set(rate.Limit{Rate: g.Rate, Burst: g.Burst, Until: g.Until})
	})
	return d.Use, func() { d.Stop(grant.DefaultPeriod) }
}
