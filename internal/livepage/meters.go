package livepage

import (
	"math"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// The metrics the page reads from its gatherer, by agent (see package
// meter).
const (
	itemsIn  = "evolve_items_in_total"
	itemsOut = "evolve_items_out_total"
	wait     = "evolve_queue_wait_seconds"
)

// reading is what a gatherer said at one instant: by agent name, the
// items in and out so far, and the cumulative buckets of the wait in the
// input queue.
type reading struct {
	at      time.Time
	in, out map[string]float64
	waits   map[string][]bucket
}

// bucket is one cumulative bucket of a histogram: the observations at or
// under its upper bound.
type bucket struct {
	le    float64
	count uint64
}

// read gathers g's metrics at instant at.
func read(g prometheus.Gatherer, at time.Time) (reading, error) {
	r := reading{at: at, in: map[string]float64{}, out: map[string]float64{}, waits: map[string][]bucket{}}
	fams, err := g.Gather()
	if err != nil {
		return r, err
	}
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			name := agentOf(m)
			switch f.GetName() {
			case itemsIn:
				r.in[name] += m.GetCounter().GetValue()
			case itemsOut:
				r.out[name] += m.GetCounter().GetValue()
			case wait:
				r.waits[name] = bucketsOf(m.GetHistogram())
			}
		}
	}
	return r, nil
}

// agentOf returns the value of m's label "agent".
func agentOf(m *dto.Metric) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == "agent" {
			return l.GetValue()
		}
	}
	return ""
}

// bucketsOf returns h's buckets, and the +Inf bucket last.
func bucketsOf(h *dto.Histogram) []bucket {
	bs := make([]bucket, 0, len(h.GetBucket())+1)
	for _, b := range h.GetBucket() {
		bs = append(bs, bucket{le: b.GetUpperBound(), count: b.GetCumulativeCount()})
	}
	return append(bs, bucket{le: math.Inf(1), count: h.GetSampleCount()})
}

// perSecond returns the per-second rate of a counter between two
// readings, or false when the newer lacks it or they are at one instant.
// A counter the older lacks had counted nothing yet.
func perSecond(old, cur map[string]float64, name string, dt time.Duration) (float64, bool) {
	a := old[name]
	b, ok := cur[name]
	if !ok || dt <= 0 || b < a {
		return 0, false
	}
	return (b - a) / dt.Seconds(), true
}

// quantile returns the q-quantile of the observations that cur has and
// old had not, interpolated within a bucket as Prometheus's
// histogram_quantile does (an observation past the last finite bound
// counts as that bound), or false when there are none.
func quantile(q float64, old, cur []bucket) (float64, bool) {
	if len(cur) == 0 {
		return 0, false
	}
	diff := make([]uint64, len(cur))
	for i, b := range cur {
		diff[i] = b.count
		if len(old) == len(cur) && old[i].count <= b.count {
			diff[i] -= old[i].count
		}
	}
	total := diff[len(diff)-1]
	if total == 0 {
		return 0, false
	}
	rank := q * float64(total)
	lower, below := 0.0, uint64(0)
	for i, b := range cur {
		if float64(diff[i]) >= rank {
			if math.IsInf(b.le, 1) {
				return lower, true
			}
			in := diff[i] - below
			if in == 0 {
				return b.le, true
			}
			return lower + (b.le-lower)*(rank-float64(below))/float64(in), true
		}
		lower, below = b.le, diff[i]
	}
	return lower, true
}
