package meter

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// The histograms' names, units and descriptions, the same whichever way
// they reach OpenTelemetry.
const (
	workName        = "evolve.work.duration"
	workDescription = "How long each piece of work took."
	waitName        = "evolve.queue.wait"
	waitDescription = "How long each item waited in the agent's input queue."
	seconds         = "s"
)

// Histograms produces the histograms of the work's duration and of the
// queue's wait that the agents of its runtimes count themselves, in plain
// memory, rather than recording each duration through an OpenTelemetry
// instrument. It is an OpenTelemetry SDK metric producer
// (go.opentelemetry.io/otel/sdk/metric.Producer): a collection reads the
// bucket counts. The histograms are cumulative from the producer's
// creation, one data point per agent name, and keep counting the agents
// that have ended. It is safe for concurrent use.
type Histograms struct {
	start time.Time

	mu    sync.Mutex
	live  map[*Gauges]struct{}
	ended map[string]*pair // the tallies of agents that have ended, by name
}

// pair is the two histograms of one agent.
type pair struct {
	work, wait tally
}

// NewHistograms returns a producer with no agent yet.
func NewHistograms() *Histograms {
	return &Histograms{start: time.Now(), live: make(map[*Gauges]struct{}), ended: make(map[string]*pair)}
}

// join adds g's tallies to what h produces.
func (h *Histograms) join(g *Gauges) {
	h.mu.Lock()
	h.live[g] = struct{}{}
	h.mu.Unlock()
}

// leave keeps g's tallies among those of the agents that ended.
func (h *Histograms) leave(g *Gauges) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.live, g)
	p := h.ended[g.name]
	if p == nil {
		p = &pair{}
		h.ended[g.name] = p
	}
	g.mu.Lock()
	p.work.merge(&g.tallies.work)
	p.wait.merge(&g.tallies.wait)
	g.mu.Unlock()
}

// Produce implements go.opentelemetry.io/otel/sdk/metric.Producer: the two
// histograms as they stand, in the instrumentation scope [Name], each
// with a data point per agent name that measured one (none, while no agent
// has).
func (h *Histograms) Produce(context.Context) ([]metricdata.ScopeMetrics, error) {
	sums := h.byName()
	now := time.Now()
	work := metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality}
	wait := metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality}
	for name, p := range sums {
		attrs := attribute.NewSet(attribute.String("agent", name))
		if p.work.count > 0 {
			work.DataPoints = append(work.DataPoints, h.point(attrs, now, &p.work))
		}
		if p.wait.count > 0 {
			wait.DataPoints = append(wait.DataPoints, h.point(attrs, now, &p.wait))
		}
	}
	var ms []metricdata.Metrics
	if len(work.DataPoints) > 0 {
		ms = append(ms, metricdata.Metrics{Name: workName, Description: workDescription, Unit: seconds, Data: work})
	}
	if len(wait.DataPoints) > 0 {
		ms = append(ms, metricdata.Metrics{Name: waitName, Description: waitDescription, Unit: seconds, Data: wait})
	}
	if len(ms) == 0 {
		return nil, nil
	}
	return []metricdata.ScopeMetrics{{Scope: instrumentation.Scope{Name: Name}, Metrics: ms}}, nil
}

// byName sums the tallies of the agents, live and ended, by name.
func (h *Histograms) byName() map[string]*pair {
	h.mu.Lock()
	defer h.mu.Unlock()
	sums := make(map[string]*pair, len(h.ended)+len(h.live))
	add := func(name string, work, wait *tally) {
		p := sums[name]
		if p == nil {
			p = &pair{}
			sums[name] = p
		}
		p.work.merge(work)
		p.wait.merge(wait)
	}
	for name, p := range h.ended {
		add(name, &p.work, &p.wait)
	}
	for g := range h.live {
		g.mu.Lock()
		t := g.tallies
		g.mu.Unlock()
		add(g.name, &t.work, &t.wait)
	}
	return sums
}

// point is the data point of tally t for attrs.
func (h *Histograms) point(attrs attribute.Set, now time.Time, t *tally) metricdata.HistogramDataPoint[float64] {
	return metricdata.HistogramDataPoint[float64]{
		Attributes:   attrs,
		StartTime:    h.start,
		Time:         now,
		Count:        t.count,
		Bounds:       append([]float64(nil), buckets[:]...),
		BucketCounts: append([]uint64(nil), t.counts[:]...),
		Min:          metricdata.NewExtrema(t.min),
		Max:          metricdata.NewExtrema(t.max),
		Sum:          t.sum,
	}
}
