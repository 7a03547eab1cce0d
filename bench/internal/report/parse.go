package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Result is one line of benchmark output: the benchmark's name without the
// "Benchmark" prefix and the GOMAXPROCS suffix ("Chain/evolve"), its
// iteration count, and its figures by unit ("ns/op", "allocs/op", "err%").
type Result struct {
	Name    string
	N       int64
	Metrics map[string]float64
}

// Family returns the part of the name before the first slash ("Chain").
func (r Result) Family() string {
	family, _, _ := strings.Cut(r.Name, "/")
	return family
}

// Output is a parsed benchmark output: its configuration lines ("goos",
// "goarch", "pkg", "cpu", the last value of each) and its results in the order
// they came.
type Output struct {
	Config  map[string]string
	Results []Result
}

// Parse reads the text `go test -bench` writes. Benchmark lines are kept;
// configuration lines ("key: value") are collected; anything else (PASS, ok,
// logs, failures) is skipped. procs is the GOMAXPROCS the benchmarks ran with:
// above 1 the testing package appends "-procs" to every name, and Parse strips
// it. It returns an error only when r fails.
func Parse(r io.Reader, procs int) (Output, error) {
	out := Output{Config: map[string]string{}}
	suffix := ""
	if procs > 1 {
		suffix = "-" + strconv.Itoa(procs)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if res, ok := parseResult(line, suffix); ok {
			out.Results = append(out.Results, res)
			continue
		}
		if key, value, ok := parseConfig(line); ok {
			out.Config[key] = value
		}
	}
	if err := sc.Err(); err != nil {
		return Output{}, fmt.Errorf("report: reading benchmark output: %w", err)
	}
	return out, nil
}

// parseResult parses "BenchmarkName-2  N  v unit  v unit ...".
func parseResult(line, suffix string) (Result, bool) {
	f := strings.Fields(line)
	if len(f) < 4 || len(f)%2 != 0 || !strings.HasPrefix(f[0], "Benchmark") {
		return Result{}, false
	}
	n, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return Result{}, false
	}
	name := strings.TrimPrefix(f[0], "Benchmark")
	if suffix != "" {
		name = strings.TrimSuffix(name, suffix)
	}
	res := Result{Name: name, N: n, Metrics: map[string]float64{}}
	for i := 2; i < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return Result{}, false
		}
		res.Metrics[f[i+1]] = v
	}
	return res, true
}

// parseConfig parses "key: value", where key is one lower-case word.
func parseConfig(line string) (key, value string, ok bool) {
	key, value, ok = strings.Cut(line, ":")
	if !ok || key == "" || strings.ToLower(key) != key || strings.ContainsAny(key, " \t") {
		return "", "", false
	}
	return key, strings.TrimSpace(value), true
}
