package livepage

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/evolvekit/evolve/remote"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chainStatus and agentStatus have the shape of compose's Status, which
// the page reads by field name.
type chainStatus struct {
	agent.Load
	Agents []agentStatus
}

type agentStatus struct {
	Name string
	agent.Load
	Detail any
}

// script is a chain whose statuses are given in turn, the last one over
// and over.
type script struct {
	statuses []chainStatus
	err      error
}

func (s *script) status(context.Context) (any, error) {
	st := s.statuses[0]
	if len(s.statuses) > 1 {
		s.statuses = s.statuses[1:]
	}
	return st, s.err
}

// watchScript makes p watch s under name, with done as its Done.
func watchScript(p *Page, name string, s *script, done <-chan struct{}) {
	p.chains = append(p.chains, &watched{name: name, status: s.status, done: done})
}

var inf = math.Inf(1)

var t0 = time.Date(2026, 11, 28, 5, 0, 0, 0, time.UTC)

// at returns the instant of sample i.
func at(i int) time.Time { return t0.Add(time.Duration(i) * Period) }

// two returns a two-stage chain's status: a rate stage with q items
// queued and demand d, and a parallel stage with f items in flight and r
// results held.
func two(q, d, f, r int) chainStatus {
	return chainStatus{Agents: []agentStatus{
		{Name: "rate", Load: agent.Load{Queued: q, Demand: agent.Credit(d)}, Detail: rate.Status{Load: agent.Load{Queued: q, Demand: agent.Credit(d)}, Rate: 5, Burst: 1, Tokens: 0.5}},
		{Name: "work", Load: agent.Load{InFlight: f, Demand: agent.Unbounded}, Detail: parallel.Status{Load: agent.Load{InFlight: f, Demand: agent.Unbounded}, Limit: 2, Held: r}},
	}}
}

func TestSharesAreTheFractionsOfTheWindowsSamples(t *testing.T) {
	p := New(nil)
	// 10 samples with the rate stage held back (no demand, items queued),
	// then 30 with it spending tokens; the work stage busy throughout but
	// for the first 20.
	var sts []chainStatus
	for i := range 40 {
		d, f := 0, 0
		if i >= 10 {
			d = 1
		}
		if i >= 20 {
			f = 2
		}
		sts = append(sts, two(3, d, f, 0))
	}
	watchScript(p, "c", &script{statuses: sts}, nil)
	for i := range 40 {
		p.Sample(context.Background(), at(i))
	}
	c := p.Live().Chains[0]
	assert.Equal(t, Shares{Busy: 0.75, Held: 0.25}, c.Stages[0].Shares)
	assert.Equal(t, Shares{Busy: 0.5, Idle: 0.5}, c.Stages[1].Shares)
	assert.Equal(t, "rate", c.Bottleneck, "the first stage busy at least half the window, more than held back")

	// 60 samples more, all idle but for the work stage, one slot of two
	// at work: the window holds only the last 50.
	watchScript(p, "d", &script{statuses: []chainStatus{two(0, 1, 1, 0)}}, nil)
	p.chains = p.chains[1:]
	for i := 40; i < 100; i++ {
		p.Sample(context.Background(), at(i))
	}
	c = p.Live().Chains[0]
	assert.Equal(t, Shares{Idle: 1}, c.Stages[0].Shares)
	assert.Equal(t, Shares{Busy: 0.5, Idle: 0.5}, c.Stages[1].Shares, "busy as the share of its limit at work")
	assert.Len(t, p.chains[0].stamps[1], int(Window/Period), "the window's samples alone")
	assert.Equal(t, "work", c.Bottleneck, "busy half the window, and never held back")
}

func TestAHeldResultHoldsTheStageBack(t *testing.T) {
	p := New(nil)
	st := two(0, 1, 2, 1)
	st.Agents[1].Load.Demand = 0
	watchScript(p, "c", &script{statuses: []chainStatus{st}}, nil)
	p.Sample(context.Background(), at(0))
	c := p.Live().Chains[0]
	assert.Equal(t, Shares{Held: 1}, c.Stages[1].Shares)
	assert.Empty(t, c.Bottleneck, "no stage is busy")
}

func TestAChainDoneIsShownAsItEndedAndTheOldestDoneAreForgotten(t *testing.T) {
	p := New(nil)
	done := make(chan struct{})
	close(done)
	for i := range keptOver + 2 {
		s := &script{statuses: []chainStatus{two(0, 1, 0, 0), two(5, 5, 5, 5)}}
		watchScript(p, string(rune('a'+i)), s, done)
	}
	p.Sample(context.Background(), at(0))
	p.Sample(context.Background(), at(1))
	doc := p.Live()
	require.Len(t, doc.Chains, keptOver)
	assert.Equal(t, "c", doc.Chains[0].Name, "the oldest two are gone")
	for _, c := range doc.Chains {
		assert.True(t, c.Done)
		assert.Equal(t, 0, c.Stages[0].Queued, "asked once, as it ended, and no more")
	}
}

func TestAFailedStatusIsShown(t *testing.T) {
	p := New(nil)
	watchScript(p, "c", &script{statuses: []chainStatus{two(1, 1, 1, 0)}, err: errors.New("compose: boom")}, nil)
	p.Sample(context.Background(), at(0))
	assert.Equal(t, "compose: boom", p.Live().Chains[0].Error)
}

// registry returns a registry with the metrics the page reads, and the
// counters and histogram to move.
func registry(t *testing.T) (*prometheus.Registry, *prometheus.CounterVec, *prometheus.CounterVec, *prometheus.HistogramVec) {
	reg := prometheus.NewRegistry()
	in := prometheus.NewCounterVec(prometheus.CounterOpts{Name: itemsIn}, []string{"agent"})
	out := prometheus.NewCounterVec(prometheus.CounterOpts{Name: itemsOut}, []string{"agent"})
	w := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: wait, Buckets: []float64{0.001, 0.01, 0.1, 1}}, []string{"agent"})
	require.NoError(t, reg.Register(in))
	require.NoError(t, reg.Register(out))
	require.NoError(t, reg.Register(w))
	return reg, in, out, w
}

func TestTheJSONDocument(t *testing.T) {
	reg, in, out, w := registry(t)
	p := New(reg)
	rs := remote.Status{
		Load:    agent.Load{Queued: 7, InFlight: 4, Done: 9, Demand: 2},
		Held:    1,
		Workers: []remote.WorkerStatus{{ID: 1, Addr: "127.0.0.1:7001", Tags: []string{"gpu"}, Slots: 4, InFlight: 4, Done: 9}},
		Tags:    map[string]int{"gpu": 7},
		Want:    map[string]int{"gpu": 3},
		Leased:  map[string]int{"gpu": 4},
		Keys:    map[string]int{"acme": 5},
		Started: map[string]int{"acme": 30, "bolt": 10},
	}
	st := chainStatus{Agents: []agentStatus{
		{Name: "pace", Load: agent.Load{Queued: 2, Done: 40, Demand: 3}, Detail: rate.Status{Load: agent.Load{Queued: 2, Done: 40, Demand: 3}, Rate: 5, Burst: 2, Tokens: 0.5, Shared: true}},
		{Name: "gpu", Load: rs.Load, Detail: rs},
		{Name: "sink", Load: agent.Load{Demand: agent.Unbounded}, Detail: parallel.Status{Load: agent.Load{Demand: agent.Unbounded}, Limit: 2,
			Keys: map[string]int{"a": 2, "b": 1}, Started: map[string]int{"a": 4, "b": 4}, Weights: map[string]int{"a": 3, "b": 1}}},
	}}
	watchScript(p, "render", &script{statuses: []chainStatus{st}}, nil)
	p.Sample(context.Background(), at(0))
	in.WithLabelValues("pace").Add(10)
	out.WithLabelValues("pace").Add(8)
	w.WithLabelValues("gpu").Observe(0.05) // the 0.01 to 0.1 bucket
	w.WithLabelValues("gpu").Observe(0.5)  // the 0.1 to 1 bucket: p99 is 0.1 + 0.9 x 0.98
	p.Sample(context.Background(), at(10))
	got, err := json.MarshalIndent(p.Live(), "", "  ")
	require.NoError(t, err)
	assert.JSONEq(t, `{
  "time": "2026-11-28T05:00:01Z", "window": 5, "period": 0.1,
  "chains": [{
    "name": "render", "done": false, "bottleneck": "pace",
    "stages": [
      {"name": "pace", "kind": "rate", "shares": {"busy": 1, "held": 0, "idle": 0},
       "queued": 2, "in_flight": 0, "done": 40, "failed": 0, "demand": 3, "results": 0,
       "in": 10, "out": 8, "limit": null, "tokens": 0.5, "rate": 5, "burst": 2, "shared": true,
       "wait_p50": null, "wait_p99": null},
      {"name": "gpu", "kind": "remote", "shares": {"busy": 1, "held": 0, "idle": 0},
       "queued": 7, "in_flight": 4, "done": 9, "failed": 0, "demand": 2, "results": 1,
       "in": null, "out": null, "limit": 4, "tokens": null, "rate": null, "burst": null,
       "wait_p50": 0.1, "wait_p99": 0.982,
       "workers": [{"id": 1, "addr": "127.0.0.1:7001", "tags": ["gpu"], "slots": 4, "free": 0, "in_flight": 4, "done": 9, "failed": 0, "hung": 0,
         "moved": 0, "history": [{"busy": 1, "hung": 0, "failed": 0, "moved": 0}, {"busy": 1, "hung": 0, "failed": 0, "moved": 0}]}],
       "tags": [{"tag": "gpu", "want": 3, "queued": 7, "leased": 4, "retrying": 0}],
       "keys": [{"key": "acme", "waiting": 5, "started": 30, "share": 0.75, "weight": 1, "fair": 0.5},
                {"key": "bolt", "waiting": 0, "started": 10, "share": 0.25, "weight": 1, "fair": 0.5}]},
      {"name": "sink", "kind": "parallel", "shares": {"busy": 0, "held": 0, "idle": 1},
       "queued": 0, "in_flight": 0, "done": 0, "failed": 0, "demand": null, "results": 0,
       "in": null, "out": null, "limit": 2, "tokens": null, "rate": null, "burst": null,
       "wait_p50": null, "wait_p99": null,
       "keys": [{"key": "a", "waiting": 2, "started": 4, "share": 0.5, "weight": 3, "fair": 0.75},
                {"key": "b", "waiting": 1, "started": 4, "share": 0.5, "weight": 1, "fair": 0.25}]}
    ]
  }]
}`, string(got))
}

func TestAWorkersHistoryShowsItsWorkFailuresAndMovesOverTheWindow(t *testing.T) {
	p := New(nil)
	worker := func(id uint64, inFlight, hung, failed int) remote.WorkerStatus {
		return remote.WorkerStatus{ID: id, Slots: 4, InFlight: inFlight, Hung: hung, Failed: failed}
	}
	status := func(ws ...remote.WorkerStatus) chainStatus {
		rs := remote.Status{Workers: ws}
		return chainStatus{Agents: []agentStatus{{Name: "gpu", Detail: rs}}}
	}
	s := &script{statuses: []chainStatus{
		status(worker(1, 4, 0, 0)),
		status(worker(1, 2, 0, 1)),
		status(worker(1, 1, 1, 3), worker(2, 4, 0, 5)), // worker 2 joins with failures of before
		status(worker(2, 0, 0, 5)),                     // worker 1 goes
	}}
	watchScript(p, "render", s, nil)
	for i := range 4 {
		p.Sample(context.Background(), at(i))
	}
	ws := p.Live().Chains[0].Stages[0].Workers
	require.Len(t, ws, 1, "only the workers registered now")
	assert.Equal(t, []Moment{{Busy: 1}, {Busy: 0}}, ws[0].History, "worker 2, from its first sample: failures of before it are not new")
	p = New(nil)
	s = &script{statuses: s.statuses[:0:0]}
	moving := worker(1, 1, 1, 3)
	moving.Moved = 4
	s.statuses = []chainStatus{status(worker(1, 4, 0, 0)), status(worker(1, 2, 0, 1)), status(moving)}
	watchScript(p, "render", s, nil)
	for i := range 3 {
		p.Sample(context.Background(), at(i))
	}
	ws = p.Live().Chains[0].Stages[0].Workers
	require.Len(t, ws, 1)
	assert.Equal(t, []Moment{{Busy: 1}, {Busy: 0.5, Failed: 1}, {Busy: 0.5, Hung: 1, Failed: 2, Moved: 4}}, ws[0].History)
	for i := 3; i < 3+int(Window/Period)+2; i++ {
		p.Sample(context.Background(), at(i))
	}
	ws = p.Live().Chains[0].Stages[0].Workers
	assert.Len(t, ws[0].History, int(Window/Period), "a window's samples, no more")
}

func TestOneAgentIsAChainOfOneStage(t *testing.T) {
	parts := partsOf("fetch", parallel.Status{Load: agent.Load{Queued: 3, InFlight: 2, Demand: 1}, Limit: 2, Held: 1})
	require.Len(t, parts, 1)
	p := parts[0]
	assert.Equal(t, "fetch", p.name)
	assert.Equal(t, "parallel", p.kind)
	assert.Equal(t, agent.Load{Queued: 3, InFlight: 2, Demand: 1}, p.load)
	assert.Equal(t, Sample{Queued: 3, InFlight: 2, Demand: 1, Results: 1, Limit: 2}, p.sample())
	assert.Equal(t, 2, p.detail.Limit)
	assert.Nil(t, p.detail.Keys, "a parallel stage without a Key has no keys")
}

func TestQuantile(t *testing.T) {
	bs := func(counts ...uint64) []bucket {
		les := []float64{0.001, 0.01, 0.1, 1}
		out := make([]bucket, len(counts))
		for i, c := range counts {
			out[i] = bucket{le: 1e9, count: c}
			if i < len(les) {
				out[i].le = les[i]
			}
		}
		out[len(out)-1].le = inf
		return out
	}
	for _, tc := range []struct {
		name     string
		q        float64
		old, cur []bucket
		want     float64
		ok       bool
	}{
		{"none", 0.5, nil, bs(0, 0, 0, 0, 0), 0, false},
		{"none new", 0.5, bs(1, 2, 3, 4, 4), bs(1, 2, 3, 4, 4), 0, false},
		{"all in the first bucket", 0.5, nil, bs(4, 4, 4, 4, 4), 0.0005, true},
		{"half way through the third", 0.5, nil, bs(0, 0, 4, 4, 4), 0.055, true},
		{"past the last bound", 0.99, nil, bs(0, 0, 0, 0, 2), 1, true},
		{"only what came since", 0.5, bs(4, 4, 4, 4, 4), bs(4, 4, 4, 8, 8), 0.55, true},
	} {
		got, ok := quantile(tc.q, tc.old, tc.cur)
		assert.Equal(t, tc.ok, ok, tc.name)
		assert.InDelta(t, tc.want, got, 1e-9, tc.name)
	}
}
