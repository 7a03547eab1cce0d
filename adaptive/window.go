package adaptive

import (
	"math"
	"time"
)

// window gathers the samples of one measurement at one level: how many
// completions it saw, how many of them found items waiting (and how many of
// those found fewer than the limit in flight), how long the agent was
// saturated, and the service times of the work that ran at exactly that
// level.
type window struct {
	n, k      int           // completions seen; those that ran at the level
	waited    int           // completions that found items waiting to start
	idle      int           // of those, the ones with a slot standing idle
	sum, sq   float64       // of the service times (in seconds) of those k
	busy, all time.Duration // saturated time, and all the time, it covered
}

// add counts s, measured at level, with its service time capped at clip
// seconds when clip is positive.
func (w window) add(s Sample, level int, clip float64) window {
	w.n++
	if s.Queued > 0 {
		w.waited++
		if s.InFlight < s.Limit {
			w.idle++
		}
	}
	w.busy += s.Busy
	w.all += s.Elapsed
	if s.Started == level {
		v := s.Service.Seconds()
		if clip > 0 {
			v = min(v, clip)
		}
		w.k++
		w.sum += v
		w.sq += v * v
	}
	return w
}

// estimate is a throughput estimate, in items per second, with its
// standard error, made at window number at.
type estimate struct {
	x, se float64
	at    int
}

// estimate returns the throughput at level that the window's service
// times imply by Little's law (level / mean service time), with its
// standard error.
func (w window) estimate(level, at int) estimate {
	mean := max(w.sum/float64(w.k), 1e-9)
	variance := max(w.sq/float64(w.k)-mean*mean, 0)
	rel := math.Sqrt(variance/float64(max(w.k-1, 1))) / mean
	x := float64(level) / mean
	return estimate{x: x, se: x * rel, at: at}
}

// held reports whether slots stood idle for another reason than a lack of
// work: every completion found items waiting, and some of them found fewer
// than the limit in flight (as when results are held back for their
// order, or for the demand of what takes them).
func (w window) held() bool { return w.n > 0 && w.waited == w.n && w.idle > 0 }

// counted returns the throughput the window saw, its completions over its
// time, with the relative standard error of its service times, made at
// window number at: for a window in which items waited all along but the
// limit was not always in flight (results held back for their order, say),
// where Little's law on the work that ran at the level would count slots
// that stood idle.
func (w window) counted(at int) estimate {
	x := float64(w.n) / max(w.all.Seconds(), 1e-9)
	return estimate{x: x, se: x * w.relativeError(), at: at}
}

// relativeError is the estimate's standard error over its value.
func (w window) relativeError() float64 {
	if w.k < 2 {
		return math.Inf(1)
	}
	mean := max(w.sum/float64(w.k), 1e-9)
	variance := max(w.sq/float64(w.k)-mean*mean, 0)
	return math.Sqrt(variance/float64(w.k-1)) / mean
}
