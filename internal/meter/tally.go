package meter

import (
	"sort"
	"time"
)

// tally is a histogram of durations kept in plain memory: how many fell in
// each bucket of buckets (and above the last), their count, sum, least and
// greatest, in seconds. Its owner guards it.
type tally struct {
	counts   [len(buckets) + 1]uint64
	count    uint64
	sum      float64
	min, max float64
}

// add counts n durations of d each.
func (t *tally) add(d time.Duration, n int) {
	if n <= 0 {
		return
	}
	s := d.Seconds()
	// The bucket whose upper bound is the first at or above s, as the
	// OpenTelemetry SDK bins a value: buckets include their upper bound.
	t.counts[sort.SearchFloat64s(buckets[:], s)] += uint64(n)
	if t.count == 0 || s < t.min {
		t.min = s
	}
	if t.count == 0 || s > t.max {
		t.max = s
	}
	t.count += uint64(n)
	t.sum += s * float64(n)
}

// merge adds o's durations to t's.
func (t *tally) merge(o *tally) {
	if o.count == 0 {
		return
	}
	if t.count == 0 || o.min < t.min {
		t.min = o.min
	}
	if t.count == 0 || o.max > t.max {
		t.max = o.max
	}
	for i, c := range o.counts {
		t.counts[i] += c
	}
	t.count += o.count
	t.sum += o.sum
}
