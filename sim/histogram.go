package sim

import (
	"math/bits"
	"time"
)

// subBits is the number of mantissa bits a Histogram keeps: 64 buckets per
// power of two, so a quantile is within about 1.6% of the true value.
const subBits = 6

// Histogram counts durations in logarithmic buckets, so that quantiles of
// millions of samples cost a fixed 32 KiB. Its zero value is empty and ready
// to use. It is a value: copying it copies the counts.
type Histogram struct {
	counts [64 << subBits]int64
	n      int64
	sum    time.Duration
}

// Add counts d; a negative d counts as 0.
func (h *Histogram) Add(d time.Duration) {
	d = max(d, 0)
	h.counts[bucket(uint64(d))]++
	h.n++
	h.sum += d
}

// Count returns how many durations were added.
func (h *Histogram) Count() int64 { return h.n }

// Mean returns the mean of the durations added, or 0 for none.
func (h *Histogram) Mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return h.sum / time.Duration(h.n)
}

// Quantile returns the duration below which a fraction q of the durations
// added fall (0.99 for the 99th percentile), as the lower bound of its
// bucket; 0 when none were added.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := int64(q*float64(h.n-1)) + 1
	rank = min(max(rank, 1), h.n)
	seen := int64(0)
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return time.Duration(lower(i))
		}
	}
	return time.Duration(lower(len(h.counts) - 1))
}

// bucket returns the bucket of v: exact below 2^subBits, then subBits bits
// of mantissa per power of two.
func bucket(v uint64) int {
	if v < 1<<subBits {
		return int(v)
	}
	exp := bits.Len64(v) - subBits - 1
	return (exp+1)<<subBits | int(v>>exp)&(1<<subBits-1)
}

// lower returns the smallest value in bucket i.
func lower(i int) uint64 {
	if i < 1<<subBits {
		return uint64(i)
	}
	exp := i>>subBits - 1
	return (1<<subBits | uint64(i)&(1<<subBits-1)) << exp
}
