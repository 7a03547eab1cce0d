package adaptive

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Hill is the default controller. It looks for the limit with the highest
// throughput, and moves only on evidence.
//
// It measures in windows. In a window at limit L it collects the service
// times (Start to Done) of the work that ran at exactly L in flight, and
// estimates the throughput at L by Little's law: L divided by their mean.
// Queue wait is not in it, so a long queue does not make a limit look
// slow. A service time over four times the one the best estimate implies
// counts as four times it, so that a rare straggler from a heavy tail does
// not swing a comparison. A window ends once it holds MinSamples such
// service times, over at least one mean service time, with a standard error
// within Precision, or after max(128, 8L) completions in all. A window at a
// trial limit also ends, once it holds twice MinSamples, as soon as it
// shows the trial winning or losing (below) by four standard errors: where
// service times are noisy and slow, as on a machine other processes keep
// busy, a probe that plainly loses then costs a few completions, not 128.
//
// It changes the limit only when the agent has been saturated (items
// waiting while the limit was in flight) for at least Busy of the time,
// over the window and the ones before it (each counting half as much as the
// next): under light load the limit is not what holds throughput back, so
// it stays where it is, and a probe under way is abandoned. A burst that
// fills the queue for a moment is not enough. That is why it does not
// drift. A window in which every completion found items waiting, yet some
// found a slot standing idle, is evidence all the same: the slots stood
// idle for want of something else than work (results held back for their
// order, on a machine whose other processes delay one piece of work while
// the next ones finish), and for it the throughput is counted, its
// completions over its time, rather than inferred from service times,
// which would credit the idle slots. So a limit that cannot be filled
// loses to a lower one that does as much.
//
// A move from limit b to limit a wins when the throughput at a beats the one
// at b by more than Gain times what perfect scaling would give (for a > b),
// or loses less than Gain times that (for a < b), by more than twice the
// standard error of the difference. So a higher limit must pay for itself,
// a lower one that costs little is taken, noise alone moves nothing, and
// no pair of limits can each beat the other.
//
// It starts by doubling the limit while that wins by the stricter measure
// of half of perfect scaling: a doubling is a long jump, which past a sharp
// knee can buy a little throughput with much contention, so it is taken
// only when it pays well, and the search that follows finds the limits in
// between. It searches around the best limit found with steps that halve
// (or double while a direction keeps winning) down to one; then it holds.
// While holding it measures its limit again every window, and every few
// windows (doubling up to Patience after each probe that loses) it probes
// one step up or down, at random; or only up, while the last probe up cost
// 1% of the throughput or less: there probing up is free, probing down
// costs what the limit below lacks, and a fall of capacity shows at the
// held limit anyway. Estimates older than Memory windows are forgotten, and
// when the held limit's throughput changes by more than 10% beyond noise,
// it forgets every estimate, measures the held limit afresh and searches
// again: that is how it follows a change of capacity.
//
// Hill's zero value is ready to use, with the defaults below.
type Hill struct {
	// MinSamples is the least number of service times a window needs; 0
	// means 8.
	MinSamples int
	// Precision is the relative standard error at which a window may end
	// early; 0 means 0.02.
	Precision float64
	// Busy is the share of the recent time (the window, and the ones before
	// it at half the weight each step back) the agent must have been
	// saturated for the limit to move; 0 means 0.9.
	Busy float64
	// Gain is the share of perfect scaling a move must beat, once the
	// start's doublings are over; 0 means 0.1.
	Gain float64
	// Memory is how many windows an estimate stays fresh; 0 means 12.
	Memory int
	// Patience is the most windows between two probes; 0 means 16.
	Patience int

	mode    mode
	base    int      // the best limit found
	best    estimate // the throughput at base
	level   int      // the limit being measured: base, or a trial
	step    int      // the search's step
	dir     int      // the search's direction, +1 or -1
	grow    bool     // double the step after each win
	tried   uint8    // directions tried at this step: 1 up, 2 down
	quiet   int      // windows to wait before the next probe
	backoff int      // the wait after the last probe
	flat    bool     // whether the last probe up cost next to nothing: probe up only
	windows int      // windows finished: the clock estimates age by
	marks   []mark   // recent estimates, newest last; copied on change
	w       window
	busy    float64 // saturated seconds, halved at each window's end
	all     float64 // seconds, halved at each window's end
}

// mode is what a Hill is doing.
type mode uint8

const (
	starting  mode = iota // doubling the limit while it wins
	searching             // stepping around the best limit
	holding               // keeping it, probing now and then
)

// mark is the estimate of one limit.
type mark struct {
	level int
	est   estimate
}

// Name returns "hill".
func (Hill) Name() string { return "hill" }

// View reports the phase ("start", "search", "probe" or "hold"), the
// throughput at the best limit and the service time it implies.
func (h Hill) View() View {
	v := View{Phase: [...]string{"start", "search", "hold"}[h.mode]}
	if h.mode == holding && h.level != h.base {
		v.Phase = "probe"
	}
	if h.best.x > 0 {
		v.Throughput = h.best.x
		v.Latency = time.Duration(math.Round(float64(h.base) / h.best.x * float64(time.Second)))
	}
	return v
}

// validate reports a setting out of range, for the Config that holds h.
func (h Hill) validate() error {
	switch {
	case h.MinSamples < 0 || h.Memory < 0 || h.Patience < 0:
		return invalid("hill: min samples, memory and patience must not be negative, got %d, %d and %d",
			h.MinSamples, h.Memory, h.Patience)
	case !(h.Precision >= 0 && h.Precision < 1):
		return invalid("hill: precision must be at least 0 and below 1, got %v", h.Precision)
	case !(h.Busy >= 0 && h.Busy <= 1):
		return invalid("hill: busy must be between 0 and 1, got %v", h.Busy)
	case !(h.Gain >= 0 && h.Gain < 1):
		return invalid("hill: gain must be at least 0 and below 1, got %v", h.Gain)
	}
	return nil
}

// Observe adds s to the window; when the window is complete, it decides.
func (h Hill) Observe(s Sample, r *rand.Rand) (Controller, int) {
	if h.level == 0 || s.Limit != h.level {
		h = h.restart(s)
	}
	h.w = h.w.add(s, h.level, h.clip())
	if !h.complete() {
		return h, h.level
	}
	w := h.w
	h.w = window{}
	h.windows++
	h.busy = h.busy/2 + w.busy.Seconds()
	h.all = h.all/2 + w.all.Seconds()
	saturated := h.busy >= or(h.Busy, 0.9)*h.all
	if w.k < h.minSamples() || !saturated && !w.held() {
		h.level = h.base // not saturated: no evidence, no move
		return h, h.level
	}
	e := w.estimate(h.level, h.windows)
	if !saturated {
		e = w.counted(h.windows) // items waited, yet slots stood idle
	}
	h = h.decide(e, s, r)
	return h, h.level
}

// restart begins again at the limit in force: at the start, or after the
// limit was set by hand.
func (h Hill) restart(s Sample) Hill {
	fresh := Hill{MinSamples: h.MinSamples, Precision: h.Precision, Busy: h.Busy, Gain: h.Gain,
		Memory: h.Memory, Patience: h.Patience, windows: h.windows}
	fresh.base, fresh.level = s.Limit, s.Limit
	return fresh
}

// complete reports whether the window has seen enough: enough precise
// service times over at least one mean service time, or a trial already
// decided, or many completions.
func (h Hill) complete() bool {
	w := h.w
	if w.k >= h.minSamples() && w.all.Seconds() >= w.sum/float64(w.k) &&
		(w.relativeError() <= or(h.Precision, 0.02) || h.decided()) {
		return true
	}
	return w.n >= max(128, 8*h.level)
}

// decided reports whether the window at a trial limit, saturated, already
// tells by four standard errors whether the trial wins or loses, once it
// holds twice MinSamples service times.
func (h Hill) decided() bool {
	w := h.w
	saturated := w.busy >= time.Duration(or(h.Busy, 0.9)*float64(w.all))
	if h.level == h.base || !h.fresh(h.best) || w.k < 2*h.minSamples() || !saturated {
		return false
	}
	gain := or(h.Gain, 0.1)
	if h.mode == starting {
		gain = startGain
	}
	d, sd := h.against(h.level, w.estimate(h.level, h.windows), gain)
	return math.Abs(d) > 4*sd
}

// clip is the longest service time a window counts, in seconds: four times
// the one the best estimate implies, or none before there is one.
func (h Hill) clip() float64 {
	if h.best.x <= 0 {
		return 0
	}
	return 4 * float64(h.base) / h.best.x
}

// decide moves on from a window measured while saturated.
func (h Hill) decide(e estimate, s Sample, r *rand.Rand) Hill {
	h = h.remember(h.level, e)
	if h.level == h.base {
		return h.atBase(e, s, r)
	}
	won, dir := h.wins(h.level, e), 1
	if h.mode == starting {
		won = h.beats(h.level, e, startGain)
	}
	if h.level < h.base {
		dir = -1
	}
	if won {
		h.base, h.best = h.level, e
	}
	switch h.mode {
	case starting:
		if won {
			return h.double(s)
		}
		h.mode, h.step, h.dir, h.grow, h.tried = searching, max(1, (h.level-h.base)/2), 1, false, 0
		return h.next(s)
	case holding:
		if won {
			h.mode, h.step, h.dir, h.grow, h.tried = searching, 1, dir, true, 0
			return h.next(s)
		}
		if dir > 0 {
			h.flat = h.even(e)
		}
		h.level = h.base
		h.backoff = min(2*max(h.backoff, 1), or(h.Patience, 16))
		h.quiet = h.backoff
		return h
	}
	return h.searched(won, s)
}

// atBase refreshes the estimate at the best limit and, while holding,
// notices a change of capacity or probes a neighbour.
func (h Hill) atBase(e estimate, s Sample, r *rand.Rand) Hill {
	old := h.best
	switch {
	case !h.fresh(old):
		h.best = e
	case differs(old, e):
		if h.mode == holding {
			return h.searchAfresh(e.x < old.x)
		}
		h.best = e
	default:
		h.best = estimate{x: (old.x + e.x) / 2, se: math.Hypot(old.se, e.se) / 2, at: e.at}
	}
	switch h.mode {
	case starting:
		return h.double(s)
	case searching:
		return h.next(s)
	}
	if h.quiet--; h.quiet > 0 {
		return h
	}
	dir := 1
	if !h.flat {
		dir = 1 - 2*r.IntN(2)
	}
	if t := clamp(h.base+dir, s.Min, s.Max); t != h.base {
		h.level = t
	} else if t := clamp(h.base-dir, s.Min, s.Max); t != h.base {
		h.level = t
	}
	return h
}

// searchAfresh forgets every estimate after the held limit's throughput
// changed (the window that showed it straddles the change), measures the
// held limit afresh, then searches, first downwards if it fell.
func (h Hill) searchAfresh(fell bool) Hill {
	h.best, h.marks = estimate{}, nil
	h.mode, h.step, h.grow, h.tried, h.dir = searching, max(1, h.base/4), true, 0, 1
	if fell {
		h.dir = -1
	}
	h.level = h.base
	return h
}

// double tries twice the best limit, or holds at the top.
func (h Hill) double(s Sample) Hill {
	t := clamp(2*h.base, s.Min, s.Max)
	if t == h.base {
		return h.hold()
	}
	h.level = t
	return h
}

// searched carries the search on after a trial that won or lost.
func (h Hill) searched(won bool, s Sample) Hill {
	switch {
	case won && h.grow:
		h.step *= 2
		h.tried = 0
	case won:
		h.tried = 0
	case h.grow:
		h.grow, h.step, h.tried = false, h.step/2, 0
	default:
		h.tried |= bit(h.dir)
		h.dir = -h.dir
	}
	return h.next(s)
}

// next picks the search's next trial, judging at once the ones fresh
// estimates already decide; it holds when the step falls below one.
func (h Hill) next(s Sample) Hill {
	for range 64 {
		switch {
		case h.step < 1:
			return h.hold()
		case h.tried == 3:
			h.step, h.tried, h.grow = h.step/2, 0, false
			continue
		case h.tried&bit(h.dir) != 0:
			h.dir = -h.dir
			continue
		}
		t := clamp(h.base+h.dir*h.step, s.Min, s.Max)
		m, known := h.recall(t)
		switch {
		case t == h.base:
			h.tried |= bit(h.dir)
		case !known:
			h.level = t
			return h
		case h.wins(t, m):
			h.base, h.best, h.tried = t, m, 0
			if h.grow {
				h.step *= 2
			}
		default:
			h.tried |= bit(h.dir)
			if h.grow {
				h.grow, h.step, h.tried = false, h.step/2, 0
			}
		}
	}
	return h.hold()
}

// hold keeps the best limit and probes again soon.
func (h Hill) hold() Hill {
	h.mode, h.level, h.backoff, h.quiet, h.flat = holding, h.base, 2, 2, false
	return h
}

// even reports whether estimate e, of a probe one step up, is within 1% of
// the best limit's: the throughput is flat above.
func (h Hill) even(e estimate) bool { return e.x >= 0.99*h.best.x }

// startGain is the share of perfect scaling a doubling must beat while
// starting.
const startGain = 0.5

// wins reports whether limit a, with estimate e, beats the best limit by
// Gain.
func (h Hill) wins(a int, e estimate) bool { return h.beats(a, e, or(h.Gain, 0.1)) }

// beats reports whether limit a, with estimate e, beats the best limit by
// the share gain of perfect scaling, beyond noise.
func (h Hill) beats(a int, e estimate, gain float64) bool {
	d, sd := h.against(a, e, gain)
	return d > 2*sd
}

// against returns by how much estimate e of limit a exceeds the best
// limit's throughput scaled by the share gain of perfect scaling, and the
// standard error of that difference.
func (h Hill) against(a int, e estimate, gain float64) (d, sd float64) {
	scale := 1 + gain*float64(a-h.base)/float64(h.base)
	return e.x - h.best.x*scale, math.Hypot(e.se, h.best.se*scale)
}

// differs reports whether e differs from old by more than 10% and more than
// three standard errors.
func differs(old, e estimate) bool {
	return math.Abs(e.x-old.x) > max(0.1*old.x, 3*math.Hypot(old.se, e.se))
}

// fresh reports whether e is recent enough to trust.
func (h Hill) fresh(e estimate) bool {
	return e.x > 0 && h.windows-e.at <= or(h.Memory, 12)
}

// recall returns the fresh estimate of level, if there is one.
func (h Hill) recall(level int) (estimate, bool) {
	for _, m := range h.marks {
		if m.level == level && h.fresh(m.est) {
			return m.est, true
		}
	}
	return estimate{}, false
}

// remember keeps e as the estimate of level, forgetting the oldest beyond
// eight.
func (h Hill) remember(level int, e estimate) Hill {
	marks := slices.DeleteFunc(slices.Clone(h.marks), func(m mark) bool { return m.level == level })
	if len(marks) >= 8 {
		marks = marks[1:]
	}
	h.marks = append(marks, mark{level: level, est: e})
	return h
}

func (h Hill) minSamples() int { return or(h.MinSamples, 8) }

// bit is the tried flag of a direction.
func bit(dir int) uint8 {
	if dir > 0 {
		return 1
	}
	return 2
}

// or returns v, or def when v is zero.
func or[T int | float64](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}
