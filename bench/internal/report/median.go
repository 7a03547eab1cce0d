package report

import "slices"

// Medians holds, for each benchmark name, the median of each of its figures
// over the runs, and how many runs there were.
type Medians struct {
	// Names lists the benchmarks in the order they first appeared.
	Names  []string
	Values map[string]map[string]float64
	Runs   map[string]int
	// Samples holds each figure of each run, in the order the runs came,
	// for ratios taken run by run (see Over).
	Samples map[string]map[string][]float64
}

// Summarize takes the median of every figure of every benchmark in results.
func Summarize(results []Result) Medians {
	samples := map[string]map[string][]float64{}
	m := Medians{Values: map[string]map[string]float64{}, Runs: map[string]int{}}
	for _, r := range results {
		if samples[r.Name] == nil {
			samples[r.Name] = map[string][]float64{}
			m.Names = append(m.Names, r.Name)
		}
		m.Runs[r.Name]++
		for unit, v := range r.Metrics {
			samples[r.Name][unit] = append(samples[r.Name][unit], v)
		}
	}
	for name, units := range samples {
		m.Values[name] = map[string]float64{}
		for unit, vs := range units {
			m.Values[name][unit] = Median(vs)
		}
	}
	m.Samples = samples
	return m
}

// Over returns the figure unitA of benchmark a over the figure unitB of
// benchmark b, and whether both were measured and b's is not 0. When both
// have a figure from each run, it is the median of their ratios run by run:
// bench/run's every run of go test runs both, a moment apart, so a change
// in the machine's speed from one run to the next moves both sides of a
// ratio, not one. Otherwise (one of them was run again alone, with
// -append) it is the ratio of their medians.
func (m Medians) Over(a, unitA, b, unitB string) (float64, bool) {
	x, ok1 := m.Get(a, unitA)
	y, ok2 := m.Get(b, unitB)
	if !ok1 || !ok2 || y == 0 {
		return 0, false
	}
	xs, ys := m.Samples[a][unitA], m.Samples[b][unitB]
	if len(xs) != len(ys) || len(xs) != m.Runs[a] || len(ys) != m.Runs[b] || slices.Contains(ys, 0) {
		return x / y, true
	}
	rs := make([]float64, len(xs))
	for i := range xs {
		rs[i] = xs[i] / ys[i]
	}
	return Median(rs), true
}

// Get returns the median of unit for the benchmark name, and whether there
// is one.
func (m Medians) Get(name, unit string) (float64, bool) {
	v, ok := m.Values[name][unit]
	return v, ok
}

// Median returns the median of vs (the mean of the middle two for an even
// count), and 0 for none. It does not change vs.
func Median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	mid := len(s) / 2
	if len(s)%2 == 1 {
		return s[mid]
	}
	return (s[mid-1] + s[mid]) / 2
}
