package main

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/evolvekit/evolve/adaptive"
)

// family is a controller's grid in the sweep: the settings tried.
type family struct {
	name string
	grid []adaptive.Controller
}

// windows are the sample windows the sweep tries for the windowed
// controllers (the library's least, and its default of a second).
var windows = []time.Duration{100 * time.Millisecond, 250 * time.Millisecond, time.Second}

// families returns the sweep's grid for every baseline: around the
// library's defaults, within the bounds the library accepts.
func families() []family {
	var santa, aimd, gradient, vegas []adaptive.Controller
	for _, rate := range []float64{0.05, 0.1, 0.3} {
		for _, explore := range []float64{0.01, 0.05} {
			santa = append(santa, Santa{Rate: rate, Explore: explore})
		}
	}
	for _, timeout := range []time.Duration{11 * time.Millisecond, 12 * time.Millisecond, 15 * time.Millisecond, 20 * time.Millisecond, 30 * time.Millisecond} {
		for _, backoff := range []float64{0.5, 0.75, 0.9} {
			aimd = append(aimd, AIMD{Timeout: timeout, Backoff: backoff})
		}
	}
	for _, tolerance := range []float64{1, 1.5} {
		for _, queue := range []float64{1, 2, 4} {
			for _, smoothing := range []float64{0.2, 0.5, 1} {
				gradient = append(gradient, Gradient2{Tolerance: tolerance, QueueSize: queue, Smoothing: smoothing})
			}
		}
	}
	for _, smoothing := range []float64{1, 0.5, 0.2} {
		for _, probe := range []int{30, 300, 3000} {
			vegas = append(vegas, Vegas{Smoothing: smoothing, ProbeMultiplier: probe})
		}
	}
	return []family{
		{"santa", santa},
		{"aimd", aimd}, {"aimd-windowed", windowed(aimd)},
		{"gradient2", gradient}, {"gradient2-windowed", windowed(gradient)},
		{"vegas", vegas}, {"vegas-windowed", windowed(vegas)},
	}
}

// windowed returns each controller of grid in each of the sweep's windows.
func windowed(grid []adaptive.Controller) []adaptive.Controller {
	var out []adaptive.Controller
	for _, w := range windows {
		for _, c := range grid {
			out = append(out, Windowed{Limit: c, MinWindow: w})
		}
	}
	return out
}

// score is one setting's result over the scenarios.
type score struct {
	ctl         adaptive.Controller
	mean, worst float64 // efficiency, percent
	at          string  // the scenario of the worst
}

// sweep runs every setting of every family in every scenario and prints,
// for each, its mean efficiency over the scenarios and its worst, then the
// setting chosen for each family: the best mean.
func sweep(scs []scenario, fams []family, seed uint64, w io.Writer) error {
	jobs := fixedJobs(scs)
	nfixed := len(jobs)
	for _, f := range fams {
		for _, c := range f.grid {
			for i := range scs {
				jobs = append(jobs, job{sc: i, ctl: c})
			}
		}
	}
	good, err := runAll(scs, jobs, seed, trial.goodput)
	if err != nil {
		return err
	}
	best := make([]float64, len(scs))
	for i, j := range jobs[:nfixed] {
		best[j.sc] = math.Max(best[j.sc], good[i])
	}
	k := nfixed
	var chosen []score
	for _, f := range fams {
		top := score{mean: -1}
		for _, c := range f.grid {
			s := score{ctl: c, worst: math.Inf(1)}
			for i, sc := range scs {
				e := 100 * good[k] / best[i]
				k++
				s.mean += e / float64(len(scs))
				if e < s.worst {
					s.worst, s.at = e, sc.name
				}
			}
			fmt.Fprintf(w, "sweep controller=%s settings=%q mean=%.1f%% worst=%.1f%% (%s)\n", f.name, fmt.Sprint(c), s.mean, s.worst, s.at)
			if s.mean > top.mean {
				top = s
			}
		}
		chosen = append(chosen, top)
	}
	for i, s := range chosen {
		fmt.Fprintf(w, "chosen controller=%s settings=%q mean=%.1f%% worst=%.1f%% (%s)\n", fams[i].name, fmt.Sprint(s.ctl), s.mean, s.worst, s.at)
	}
	return nil
}
