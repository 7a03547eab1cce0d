package rate

import (
	"math"
	"time"
)

// maxWait is the longest wait the bucket computes: the largest Duration.
const maxWait = time.Duration(math.MaxInt64)

// slack is how far short of a cost the bucket may be and still pay it.
// Float64 rounding over a long run of refills can leave the bucket a few
// ulps short of a cost at the exact instant it is due; without slack that
// item would go out a nanosecond late. The bucket never goes further into
// debt than this.
const slack = 1e-12

// covers reports whether tokens pay cost.
func covers(tokens, cost float64) bool { return tokens >= cost-slack }

// bucket is the token arithmetic, apart from queues and messages. It stores
// the tokens it held at instant last and refills continuously from there:
// at instant t it holds min(burst, tokens + rate*(t-last)). It is updated
// only when tokens are taken or the limit changes, so every other reading is
// computed from the same two stored numbers and cannot drift.
type bucket struct {
	limit    Limit
	tokens   float64   // tokens held at last
	last     time.Time // when tokens was stored
	anchored bool      // last is set: tokens were taken or the limit changed
}

// newBucket returns a full bucket of the shape l.
func newBucket(l Limit) bucket {
	return bucket{limit: l, tokens: float64(l.Burst)}
}

// refilled returns the tokens held elapsed after last, before the burst caps
// them. Every refill goes through this one formula, so a due instant
// computed with it is met exactly when it comes. The conversion keeps the
// compiler from fusing the multiply and the add, which some platforms round
// differently: the results are the same everywhere.
func (b bucket) refilled(elapsed time.Duration) float64 {
	return b.tokens + float64(b.limit.Rate*elapsed.Seconds())
}

// level returns the tokens held at instant at. An instant before last (a
// clock that went back) finds the tokens stored at last. A limit that has
// lapsed at at holds none.
func (b bucket) level(at time.Time) float64 {
	switch {
	case b.limit.lapsed(at):
		return 0
	case !b.anchored || !at.After(b.last):
		return b.tokens
	}
	return min(float64(b.limit.Burst), b.refilled(at.Sub(b.last)))
}

// take removes cost tokens at instant at; the caller has checked that the
// level covers them.
//
// Waits end on whole nanoseconds, so an item whose tokens arrive between two
// of them is let through up to a nanosecond after its exact instant. When the
// bucket reached cost within that last nanosecond, the item is charged as of
// its exact instant: the sliver of refill since then is kept even if it lifts
// the bucket a hair above its burst. Capping it would lose up to one
// nanosecond per item, and a backlog at burst 1 would run slow.
func (b bucket) take(at time.Time, cost float64) bucket {
	level := b.level(at)
	if b.anchored && at.After(b.last) {
		if e := at.Sub(b.last); !covers(b.refilled(e-time.Nanosecond), cost) {
			level = b.refilled(e)
		}
	}
	b.tokens = level - cost
	return b.anchor(at)
}

// reshape refills the bucket up to instant at at the old rate, then gives it
// the limit l: from at on, it refills at the new rate. Tokens above the new
// burst are dropped.
func (b bucket) reshape(at time.Time, l Limit) bucket {
	b.tokens = min(b.level(at), float64(l.Burst))
	b.limit = l
	return b.anchor(at)
}

// anchor moves last to at, unless at is before it.
func (b bucket) anchor(at time.Time) bucket {
	if !b.anchored || at.After(b.last) {
		b.last, b.anchored = at, true
	}
	return b
}

// due returns the first instant, to the nanosecond, at which the bucket
// covers cost, and false if it never will: it refills nothing, or its
// limit lapses first, or has lapsed by instant at. The caller has checked
// that it does not at at, so the bucket is anchored.
func (b bucket) due(at time.Time, cost float64) (time.Time, bool) {
	if b.limit.Rate == 0 || b.limit.Burst == 0 {
		return time.Time{}, false
	}
	due := b.last.Add(b.wait(cost))
	if b.limit.lapsed(due) || b.limit.lapsed(at) {
		return time.Time{}, false
	}
	return due, true
}

// wait returns the shortest time after last, in whole nanoseconds, after
// which the refilled bucket covers cost: the estimate (cost-tokens)/rate
// rounded up, corrected by a search with the very formula the Tick will use,
// so that float rounding can neither make a Tick at the due instant find too
// few tokens nor make it a nanosecond late.
func (b bucket) wait(cost float64) time.Duration {
	hi := ceilNanos((cost - b.tokens) / b.limit.Rate)
	for !covers(b.refilled(hi), cost) && hi < maxWait {
		hi = double(hi) // rare: only when the estimate rounded down
	}
	lo := time.Duration(0) // refilled(0) is tokens, short of cost
	if est := hi - 2; est > 0 && !covers(b.refilled(est), cost) {
		lo = est
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if covers(b.refilled(mid), cost) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// ceilNanos converts seconds to a Duration, rounding up to the nanosecond and
// capping at maxWait.
func ceilNanos(seconds float64) time.Duration {
	ns := math.Ceil(seconds * float64(time.Second))
	if !(ns < float64(maxWait)) {
		return maxWait
	}
	return time.Duration(max(ns, 0))
}

// double returns 2d+1, capped at maxWait.
func double(d time.Duration) time.Duration {
	if d >= maxWait/2 {
		return maxWait
	}
	return 2*d + 1
}
