package report

import "slices"

// Medians holds, for each benchmark name, the median of each of its figures
// over the runs, and how many runs there were.
type Medians struct {
	// Names lists the benchmarks in the order they first appeared.
	Names  []string
	Values map[string]map[string]float64
	Runs   map[string]int
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
	return m
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
