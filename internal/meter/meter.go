// Package meter publishes the status of a runtime's agents as OpenTelemetry
// instruments: counters of the items in, out, failed, retried and dropped;
// gauges of the items queued and in flight, the demand, the limit and the
// tokens, and, for an agent that has lines of work by tag, the workers each
// line wants and its backlog; histograms of the work's duration and the items' wait in the
// input queue. Every measurement carries the agent's name as the attribute
// "agent".
//
// Nothing polls the agents. Each agent publishes a [Snapshot] of its own
// state as it goes, on its own goroutine, and the observable instruments'
// one callback reads what the agents published last. The counters are
// observed by name, and keep what the agents of that name that ended
// counted: a name counts on across the agents that bear it, one at a time
// or several at once, as a Prometheus counter must for rate() to hold; an
// ended agent's gauges go with it. So a name a program gives to one kind
// of agent, started per request, keeps one set of counters; a name given
// per request keeps one per request. The measurements of a
// [Line] carry its tag as the attribute "tag" as well. A runtime without a
// meter provider has no [Meter], and its agents publish nothing.
//
// The histograms go one of two ways: each duration recorded through an
// OpenTelemetry histogram, or, with [Histograms], counted by the agent in
// plain memory and read by a collection through an SDK producer, which
// costs an item a few nanoseconds rather than a record's 85 or so.
package meter

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Name is the instrumentation scope of the instruments.
const Name = "github.com/evolvekit/evolve"

// buckets are the upper bounds, in seconds, of the buckets of the
// histograms of durations: 1, 2 and 5 times each power of ten from 10 µs
// to 10 s, then 20 s and a minute, so that a quantile is told apart
// anywhere from a quick in-memory step to a slow remote call. A provider's
// view may still set others.
var buckets = [...]float64{
	10e-6, 20e-6, 50e-6,
	100e-6, 200e-6, 500e-6,
	1e-3, 2e-3, 5e-3,
	10e-3, 20e-3, 50e-3,
	100e-3, 200e-3, 500e-3,
	1, 2, 5,
	10, 20, 60,
}

// Meter is the instruments of one runtime, and the agents that publish to
// them. It is safe for concurrent use.
type Meter struct {
	in, out, failed, retried, dropped metric.Int64ObservableCounter
	queued, inFlight, demand, limit   metric.Int64ObservableGauge
	tokens                            metric.Float64ObservableGauge
	desired, backlog                  metric.Int64ObservableGauge
	work, wait                        metric.Float64Histogram
	reg                               metric.Registration

	// hist, when not nil, produces the histograms from the agents' own
	// tallies; work and wait are then not made.
	hist *Histograms

	mu     sync.Mutex
	agents map[*Gauges]struct{}
	// ended holds, by name, the counters of the agents that ended: a
	// counter keeps counting across them, as Prometheus expects of one,
	// so that a rate() over agents started per request holds.
	ended map[string]*counts
}

// counts are an agent's counters.
type counts struct {
	in, out, failed, retried, dropped int64
	attrs                             metric.MeasurementOption
}

// add adds s's counters to c.
func (c *counts) add(s Snapshot) {
	c.in += s.In
	c.out += s.Out
	c.failed += s.Failed
	c.retried += s.Retried
	c.dropped += s.Dropped
}

// New makes the instruments on mp's meter for package evolve, and
// registers the callback that observes the agents. With hist, the agents
// tally their histograms themselves, for hist to produce; mp may then be
// nil, for the histograms alone.
func New(mp metric.MeterProvider, hist *Histograms) (*Meter, error) {
	m := &Meter{agents: make(map[*Gauges]struct{}), ended: make(map[string]*counts), hist: hist}
	if mp == nil {
		return m, nil
	}
	mt := mp.Meter(Name)
	items := metric.WithUnit("{item}")
	var errs [14]error
	m.in, errs[0] = mt.Int64ObservableCounter("evolve.items.in", items, metric.WithDescription("Items the agent took in."))
	m.out, errs[1] = mt.Int64ObservableCounter("evolve.items.out", items, metric.WithDescription("Values the agent passed on."))
	m.failed, errs[2] = mt.Int64ObservableCounter("evolve.items.failed", items, metric.WithDescription("Items whose work failed for good."))
	m.retried, errs[3] = mt.Int64ObservableCounter("evolve.items.retried", items, metric.WithDescription("Attempts made again after a failure."))
	m.dropped, errs[4] = mt.Int64ObservableCounter("evolve.items.dropped", items, metric.WithDescription("Items dropped by an overflow policy."))
	m.queued, errs[5] = mt.Int64ObservableGauge("evolve.queued", items, metric.WithDescription("Items accepted and not yet taken up."))
	m.inFlight, errs[6] = mt.Int64ObservableGauge("evolve.in_flight", items, metric.WithDescription("Items handed to work whose results have not come back."))
	m.demand, errs[7] = mt.Int64ObservableGauge("evolve.demand", items, metric.WithDescription("Values the agent may still pass on; not observed while unbounded."))
	m.limit, errs[8] = mt.Int64ObservableGauge("evolve.limit", metric.WithUnit("{work}"), metric.WithDescription("Work the agent may have in flight at once."))
	m.tokens, errs[9] = mt.Float64ObservableGauge("evolve.tokens", metric.WithUnit("{token}"), metric.WithDescription("Tokens in a rate agent's bucket."))
	m.desired, errs[12] = mt.Int64ObservableGauge("evolve.desired_workers", metric.WithUnit("{worker}"),
		metric.WithDescription("Workers the agent wants for the items of a tag: enough for their arrival rate and to drain their queue in time."))
	m.backlog, errs[13] = mt.Int64ObservableGauge("evolve.backlog", items, metric.WithDescription("Items of a tag waiting for a worker."))
	histogram := func(description string) []metric.Float64HistogramOption {
		return []metric.Float64HistogramOption{metric.WithUnit(seconds), metric.WithExplicitBucketBoundaries(buckets[:]...), metric.WithDescription(description)}
	}
	if hist == nil {
		m.work, errs[10] = mt.Float64Histogram(workName, histogram(workDescription)...)
		m.wait, errs[11] = mt.Float64Histogram(waitName, histogram(waitDescription)...)
	}
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	reg, err := mt.RegisterCallback(m.observe, m.in, m.out, m.failed, m.retried, m.dropped,
		m.queued, m.inFlight, m.demand, m.limit, m.tokens, m.desired, m.backlog)
	if err != nil {
		return nil, err
	}
	m.reg = reg
	return m, nil
}

// Close unregisters the callback: the agents are observed no more.
func (m *Meter) Close() error {
	if m.reg == nil {
		return nil
	}
	return m.reg.Unregister()
}

// Agent registers the agent named name, whose measurements carry that name,
// and returns where it publishes.
func (m *Meter) Agent(name string) *Gauges {
	attrs := metric.WithAttributeSet(attribute.NewSet(attribute.String("agent", name)))
	g := &Gauges{m: m, name: name, attrs: attrs, record: []metric.RecordOption{attrs}}
	m.mu.Lock()
	m.agents[g] = struct{}{}
	m.mu.Unlock()
	if m.hist != nil {
		m.hist.join(g)
	}
	return g
}

// observe observes what every agent published last: the counters by
// name, those of the agents of that name that ended included; the gauges
// of the live agents alone.
func (m *Meter) observe(_ context.Context, o metric.Observer) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	byName := make(map[string]*counts, len(m.ended)+len(m.agents))
	for name, c := range m.ended {
		sum := *c
		byName[name] = &sum
	}
	for g := range m.agents {
		g.mu.Lock()
		s := g.last
		g.mu.Unlock()
		c := byName[g.name]
		if c == nil {
			c = &counts{attrs: g.attrs}
			byName[g.name] = c
		}
		c.add(s)
		o.ObserveInt64(m.queued, s.Queued, g.attrs)
		o.ObserveInt64(m.inFlight, s.InFlight, g.attrs)
		if !s.Unbounded {
			o.ObserveInt64(m.demand, s.Demand, g.attrs)
		}
		if s.Limit > 0 {
			o.ObserveInt64(m.limit, s.Limit, g.attrs)
		}
		if s.HasTokens {
			o.ObserveFloat64(m.tokens, s.Tokens, g.attrs)
		}
		for _, l := range s.Lines {
			attrs := metric.WithAttributeSet(attribute.NewSet(attribute.String("agent", g.name), attribute.String("tag", l.Tag)))
			o.ObserveInt64(m.desired, l.Desired, attrs)
			o.ObserveInt64(m.backlog, l.Backlog, attrs)
		}
	}
	for _, c := range byName {
		o.ObserveInt64(m.in, c.in, c.attrs)
		o.ObserveInt64(m.out, c.out, c.attrs)
		o.ObserveInt64(m.failed, c.failed, c.attrs)
		o.ObserveInt64(m.retried, c.retried, c.attrs)
		o.ObserveInt64(m.dropped, c.dropped, c.attrs)
	}
	return nil
}

// Snapshot is what an agent publishes of its state.
type Snapshot struct {
	// In counts the items taken in, Out the values passed on; Failed,
	// Retried and Dropped the items failed for good, tried again and
	// dropped. All count from the agent's start.
	In, Out, Failed, Retried, Dropped int64
	// Queued, InFlight and Demand are the agent's Load; Demand is not
	// observed while Unbounded.
	Queued, InFlight, Demand int64
	Unbounded                bool
	// Limit is the most work in flight, 0 for an agent with none.
	Limit int64
	// Tokens are a rate agent's, if HasTokens.
	Tokens    float64
	HasTokens bool
	// Lines are the agent's lines of work by tag, if it has any.
	Lines []Line
}

// Line is what an agent publishes of the items of one tag ("" for those
// that need none): the workers it wants for them, and how many wait for
// one.
type Line struct {
	Tag              string
	Desired, Backlog int64
}

// Extra is what a status says beyond its Load that the instruments show:
// the agent package's own reading of its status.
type Extra struct {
	Limit, Retried, Dropped int64
	Tokens                  float64
	HasTokens               bool
	Lines                   []Line
}

// Gauges is where one agent publishes. Publish, Worked and Waited may be
// called from any goroutine; Close once, as the agent ends.
type Gauges struct {
	m     *Meter
	name  string
	attrs metric.MeasurementOption
	// record is attrs as the options of a Record: a slice made once, so
	// that a record does not make one each time.
	record []metric.RecordOption

	mu      sync.Mutex
	last    Snapshot
	tallies pair // the histograms, when the meter's hist produces them
}

// Publish makes s what the instruments observe of the agent.
func (g *Gauges) Publish(s Snapshot) {
	g.mu.Lock()
	g.last = s
	g.mu.Unlock()
}

// Worked records that a piece of the agent's work took d.
func (g *Gauges) Worked(d time.Duration) {
	if g.m.hist != nil {
		g.mu.Lock()
		g.tallies.work.add(d, 1)
		g.mu.Unlock()
		return
	}
	if g.m.work != nil {
		g.m.work.Record(context.Background(), d.Seconds(), g.record...)
	}
}

// Waited records that n items waited d each in the agent's input queue.
func (g *Gauges) Waited(d time.Duration, n int) {
	if g.m.hist != nil {
		g.mu.Lock()
		g.tallies.wait.add(d, n)
		g.mu.Unlock()
		return
	}
	if g.m.wait == nil {
		return
	}
	for range n {
		g.m.wait.Record(context.Background(), d.Seconds(), g.record...)
	}
}

// Close forgets the agent, which ended: its gauges are observed no more,
// and its counters are added to those of the agents of its name that
// ended before (see Meter.ended). A second Close does nothing.
func (g *Gauges) Close() {
	g.mu.Lock()
	last := g.last
	g.mu.Unlock()
	g.m.mu.Lock()
	_, live := g.m.agents[g]
	if live {
		delete(g.m.agents, g)
		c := g.m.ended[g.name]
		if c == nil {
			c = &counts{attrs: g.attrs}
			g.m.ended[g.name] = c
		}
		c.add(last)
	}
	g.m.mu.Unlock()
	if live && g.m.hist != nil {
		g.m.hist.leave(g)
	}
}
