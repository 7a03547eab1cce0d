package adaptive

import (
	"math"
	"time"
)

// window gathers the samples of one measurement at one level: how many
// completions it saw, how long the agent was saturated, and the service
// times of the work that ran at exactly that level.
type window struct {
	n, k      int           // completions seen; those that ran at the level
	sum, sq   float64       // of the service times (in seconds) of those k
	busy, all time.Duration // saturated time, and all the time, it covered
}

// add counts s, measured at level, with its service time capped at clip
// seconds when clip is positive.
func (w window) add(s Sample, level int, clip float64) window {
	w.n++
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

// relativeError is the estimate's standard error over its value.
func (w window) relativeError() float64 {
	if w.k < 2 {
		return math.Inf(1)
	}
	mean := max(w.sum/float64(w.k), 1e-9)
	variance := max(w.sq/float64(w.k)-mean*mean, 0)
	return math.Sqrt(variance/float64(w.k-1)) / mean
}
