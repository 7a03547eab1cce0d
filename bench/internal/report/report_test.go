package report_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/evolvekit/evolve/bench/internal/report"
)

// sample is benchmark output as `go test -bench . -benchmem -count 3` writes
// it with GOMAXPROCS 2, cut down, with the noise such output carries.
const sample = `goos: linux
goarch: amd64
pkg: github.com/evolvekit/evolve/bench
cpu: Intel(R) Xeon(R) Processor
BenchmarkChain/evolve-2         	  100000	       300.0 ns/op	     100 B/op	       2 allocs/op
BenchmarkChain/evolve-2         	  100000	       200.0 ns/op	      90 B/op	       1 allocs/op
BenchmarkChain/evolve-2         	  100000	       240.0 ns/op	      80 B/op	       1 allocs/op
BenchmarkChain/channels-2       	  757166	       100.0 ns/op	       8 B/op	       0 allocs/op
BenchmarkChain/channels-2       	  757166	       120.0 ns/op	       8 B/op	       0 allocs/op
BenchmarkAgent/evolve-2         	  111358	       957.9 ns/op	   1000000 msg/s	     128 B/op	       4 allocs/op
BenchmarkAgent/protoactor-2     	  812536	       141.4 ns/op	   4000000 msg/s	       6 B/op	       0 allocs/op
BenchmarkRate/evolve/1000-2     	       1	    995627 ns/op	        -0.1 err%	       999.9 items/s
BenchmarkRate/evolve/10000-2    	       1	     99439 ns/op	         0.15 err%	     10015 items/s
BenchmarkRate/evolve/100000-2   	       1	      9937 ns/op	         0.25 err%	    100250 items/s
BenchmarkRate/xrate/1000-2      	       1	    991754 ns/op	         0.01 err%	      1000 items/s
BenchmarkRate/burst-1/evolve/1000-2 	       1	   1140411 ns/op	       -12.11 err%	       878.9 items/s
    rate_test.go:97: a log line in between
--- FAIL: BenchmarkSomething
BenchmarkAdaptiveCPU/adaptive-2 	       1	    460820 ns/op	      2000 items/s	         2.000 limit
BenchmarkAdaptiveCPU/fixed-1-2  	       1	    911276 ns/op	      1000 items/s
BenchmarkAdaptiveCPU/fixed-2-2  	       1	    482243 ns/op	      2050 items/s
BenchmarkAdaptiveCPU/fixed-8-2  	       1	    487547 ns/op	      2020 items/s
BenchmarkOverload/evolve-2      	       1	    107422 ns/op	         10 peak-heap-MB
BenchmarkOverload/unbounded-2   	       1	    106792 ns/op	         80 peak-heap-MB
BenchmarkRemote/workers-1-2     	  200000	      5000 ns/op	        12.00 allocs/item	    200000 items/s	      2000 master-cpu-ns/item	       150.0 start-ms	      3000 workers-cpu-ns/item	    1500 B/op	      12 allocs/op
BenchmarkRemote/workers-2-2     	  200000	      4000 ns/op	         1.50 allocs/item	    250000 items/s	      1000 master-cpu-ns/item	       140.0 start-ms	      1200 workers-cpu-ns/item	    1400 B/op	       1 allocs/op
BenchmarkRemoteRaw-2            	  200000	      1000 ns/op	         5.03 allocs/msg	   1000000 msg/s	      1200 sender-cpu-ns/msg	      1000 sink-cpu-ns/msg	       110.0 start-ms	     300 B/op	       5 allocs/op
BenchmarkDurable/durable-2      	   80000	     12500 ns/op	     80000 items/s
BenchmarkDurable/durable-sync-2 	    4000	    250000 ns/op	      4000 items/s
BenchmarkDurable/memory-2       	 3000000	       333.0 ns/op	   3000000 items/s
BenchmarkDurable/raw-2          	  150000	      6666 ns/op	    150000 items/s
BenchmarkDurable/add-2          	   90000	     11111 ns/op	     90000 items/s
BenchmarkDurable/raw-publish-2  	  100000	      9090 ns/op	    110000 items/s
BenchmarkDurable/raw-publish-like-2	  100000	     10000 ns/op	    100000 items/s
BenchmarkChain/evolve-metrics-2 	  100000	       260.0 ns/op	     100 B/op	       1 allocs/op
BenchmarkRemoteFar/loopback-prefetch-2 	       1	 1071428 ns/op	      1400 items/s
BenchmarkRemoteFar/far-prefetch-2      	       1	 1153846 ns/op	      1300 items/s
BenchmarkScale/limit=100/evolve-2           	1	 111111 ns/op	 12000 cpu-ns/op	  9000 items/s	 0.90 of-ideal
BenchmarkScale/limit=100/evolve-unordered-2 	1	 109890 ns/op	 11000 cpu-ns/op	  9100 items/s	 0.91 of-ideal
BenchmarkScale/limit=100/goroutines-2       	1	 108695 ns/op	 10000 cpu-ns/op	  9200 items/s	 0.92 of-ideal
BenchmarkScale/limit=1000/evolve-2          	1	  12500 ns/op	  6000 cpu-ns/op	 80000 items/s	 0.80 of-ideal
BenchmarkScale/limit=1000/evolve-unordered-2	1	  11764 ns/op	  5500 cpu-ns/op	 85000 items/s	 0.85 of-ideal
BenchmarkScale/limit=1000/goroutines-2      	1	  11111 ns/op	  5000 cpu-ns/op	 90000 items/s	 0.90 of-ideal
BenchmarkScale/limit=10000/evolve-2         	1	   2000 ns/op	  4000 cpu-ns/op	500000 items/s	 0.50 of-ideal
BenchmarkScale/limit=10000/evolve-unordered-2	1	   2000 ns/op	  3900 cpu-ns/op	500000 items/s	 0.50 of-ideal
BenchmarkScale/limit=10000/goroutines-2     	1	   1666 ns/op	  3000 cpu-ns/op	600000 items/s	 0.60 of-ideal
BenchmarkSim-2                  	       3	 150000000 ns/op	   2000000 msgs/s
PASS
ok  	github.com/evolvekit/evolve/bench	10.045s
`

func parse(t *testing.T) report.Output {
	t.Helper()
	out, err := report.Parse(strings.NewReader(sample), 2)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestParseKeepsBenchmarkLinesAndConfig(t *testing.T) {
	out := parse(t)
	if got, want := len(out.Results), 41; got != want {
		t.Fatalf("%d results, want %d", got, want)
	}
	first := out.Results[0]
	if first.Name != "Chain/evolve" || first.N != 100000 || first.Family() != "Chain" {
		t.Errorf("first result %+v", first)
	}
	if got := first.Metrics["allocs/op"]; got != 2 {
		t.Errorf("allocs/op %v, want 2", got)
	}
	for _, key := range []string{"goos", "goarch", "pkg", "cpu"} {
		if out.Config[key] == "" {
			t.Errorf("config %q missing", key)
		}
	}
	if out.Config["cpu"] != "Intel(R) Xeon(R) Processor" {
		t.Errorf("cpu %q", out.Config["cpu"])
	}
}

func TestParseStripsOnlyTheProcsSuffix(t *testing.T) {
	names := map[string]bool{}
	for _, r := range parse(t).Results {
		names[r.Name] = true
	}
	for _, want := range []string{"AdaptiveCPU/fixed-1", "AdaptiveCPU/fixed-8", "Rate/burst-1/evolve/1000", "Overload/unbounded"} {
		if !names[want] {
			t.Errorf("no benchmark named %q in %v", want, names)
		}
	}
	one, err := report.Parse(strings.NewReader("BenchmarkAdaptiveCPU/fixed-8 \t 1 \t 5 ns/op\n"), 1)
	if err != nil {
		t.Fatal(err)
	}
	if one.Results[0].Name != "AdaptiveCPU/fixed-8" {
		t.Errorf("with GOMAXPROCS 1 the name is %q", one.Results[0].Name)
	}
}

func TestParseSkipsMalformedLines(t *testing.T) {
	out, err := report.Parse(strings.NewReader("BenchmarkX-2 \t many \t 5 ns/op\nBenchmarkY-2 1 5\nBenchmarkZ-2 1 five ns/op\nBenchmarkOK-2 3 4 ns/op\n"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 1 || out.Results[0].Name != "OK" {
		t.Errorf("results %+v", out.Results)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		in := append([]float64(nil), c.in...)
		if got := report.Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
		for i := range in {
			if in[i] != c.in[i] {
				t.Errorf("Median changed its input: %v", c.in)
			}
		}
	}
}

func TestSummarizeTakesTheMedianOfEachFigure(t *testing.T) {
	m := report.Summarize(parse(t).Results)
	if m.Names[0] != "Chain/evolve" || m.Names[1] != "Chain/channels" {
		t.Errorf("names out of order: %v", m.Names)
	}
	if m.Runs["Chain/evolve"] != 3 || m.Runs["Chain/channels"] != 2 {
		t.Errorf("runs %v", m.Runs)
	}
	for _, c := range []struct {
		name, unit string
		want       float64
	}{
		{"Chain/evolve", "ns/op", 240},
		{"Chain/evolve", "allocs/op", 1},
		{"Chain/evolve", "B/op", 90},
		{"Chain/channels", "ns/op", 110},
	} {
		if got, ok := m.Get(c.name, c.unit); !ok || got != c.want {
			t.Errorf("%s %s = %v, %v; want %v", c.name, c.unit, got, ok, c.want)
		}
	}
	if _, ok := m.Get("Chain/evolve", "msg/s"); ok {
		t.Error("a figure no run reported has a median")
	}
}

func TestRatios(t *testing.T) {
	m := report.Summarize(parse(t).Results)
	if r, ok := report.AgentRatio(m); !ok || r != 0.25 {
		t.Errorf("AgentRatio = %v, %v; want 0.25", r, ok)
	}
	best, v, ok := report.BestFixed(m)
	if !ok || best != "fixed-2" || v != 2050 {
		t.Errorf("BestFixed = %q, %v, %v", best, v, ok)
	}
	if r, best, ok := report.AdaptiveRatio(m); !ok || best != "fixed-2" || r != 2000.0/2050 {
		t.Errorf("AdaptiveRatio = %v, %q, %v", r, best, ok)
	}
	for name, want := range map[string]float64{"RemoteRaw": 1, "Remote/workers-1": 0.2, "Remote/workers-2": 0.25} {
		if r, ok := report.RemoteRatio(m, name); !ok || r != want {
			t.Errorf("RemoteRatio(%s) = %v, %v; want %v", name, r, ok, want)
		}
	}
	if _, ok := report.RemoteRatio(m, "Remote/workers-3"); ok {
		t.Error("RemoteRatio of a benchmark that did not run")
	}
}

func TestTargets(t *testing.T) {
	m := report.Summarize(parse(t).Results)
	want := map[string]string{
		"chain <= 250 ns/item":         "met", // 240
		"chain <= 1 alloc/item":        "met", // 1
		"chain <= 0.8× conc":           "not measured",
		"chain <= 1.0× hand-written":   "not met", // 240 ÷ 110
		"chain with metrics":           "met",     // 260 ÷ 240
		"one agent":                    "not met", // 0.25×
		"rate":                         "not met", // +0.25% at 100,000/s
		"adaptive":                     "met",     // 0.976×
		"remote, 2 workers >= 1.5×":    "not met", // 0.25×
		"a worker 100 ms away":         "met",     // 1300 ÷ 1400
		"remote, 2 workers >= 100,000": "met",     // 250,000
		"remote, 2 workers <= 0.5":     "not met", // 1.5
		"durable chain >= 0.9×":        "not met", // 0.53×
		"durable chain >= 50,000":      "met",     // 80,000
		"durable AddMany":              "not met", // 0.90×
		"many in flight: CPU":          "not met", // 1.33× at 10,000
		"many in flight: items/s":      "not met", // 0.89× at 1,000, where goroutines reach 0.9
		"simulator":                    "not met", // 2,000,000
		"shared rate |err|":            "not measured",
		"shared rate >= 0.9×":          "not measured",
	}
	ts := report.Targets(m)
	if len(ts) != len(want) {
		t.Fatalf("%d targets, want %d", len(ts), len(want))
	}
	for _, tg := range ts {
		for prefix, verdict := range want {
			if strings.HasPrefix(tg.Goal, prefix) && tg.Verdict() != verdict {
				t.Errorf("%s: %s (%s), want %s", tg.Goal, tg.Verdict(), tg.Figure, verdict)
			}
		}
	}
	slow := report.Summarize([]report.Result{
		{Name: "Remote/workers-2", Metrics: map[string]float64{"items/s": 99_999, "allocs/item": 2.01}},
		{Name: "RemoteRaw", Metrics: map[string]float64{"msg/s": 400_000}},
	})
	for _, tg := range report.Targets(slow) {
		if strings.HasPrefix(tg.Goal, "remote") && tg.Verdict() != "not met" {
			t.Errorf("with 99,999 items/s, 0.2499× and 2.01 allocs/item, %s is %s (%s)", tg.Goal, tg.Verdict(), tg.Figure)
		}
	}
	none := report.Targets(report.Summarize(nil))
	for _, tg := range none {
		if tg.Verdict() != "not measured" {
			t.Errorf("with no results, %s is %s", tg.Goal, tg.Verdict())
		}
	}
}

func TestNum(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0", 0.01234: "0.0123", 1.5: "1.50", 12.34: "12.3", 250: "250",
		9999.4: "9999", 12345: "12,345", 1234567: "1,234,567", -12345: "-12,345",
	} {
		if got := report.Num(v); got != want {
			t.Errorf("Num(%v) = %q, want %q", v, got, want)
		}
	}
	if got := report.Signed(0.05); got != "+0.050" {
		t.Errorf("Signed(0.05) = %q", got)
	}
}

func TestRenderShowsEveryFigureRatioAndTarget(t *testing.T) {
	m := report.Summarize(parse(t).Results)
	var buf bytes.Buffer
	err := report.Render(&buf, report.Report{
		Date:      time.Date(2026, 11, 21, 20, 55, 0, 0, time.UTC),
		Machine:   report.Machine{CPU: "Intel(R) Xeon(R) Processor", Cores: 2, GOOS: "linux", GOARCH: "amd64", Go: "go1.26.8"},
		Command:   "bench/run -count 3",
		Load:      "0.10 0.20 0.30",
		Raw:       "benchmarks.txt",
		Medians:   m,
		Benchstat: "goos: linux\nChain/evolve-2   240n ± 20%\n",
	})
	if err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{
		"- Date: 2026-11-21 20:55 UTC (when the report was written)",
		"- Machine: Intel(R) Xeon(R) Processor, 2 cores, linux/amd64, go1.26.8",
		"- Command: `bench/run -count 3`",
		"0.10 0.20 0.30",
		"[benchmarks.txt](benchmarks.txt)",
		"1 to 3 runs",
		"| chain <= 250 ns/item | 240 ns/item | met |",
		`| rate \|err\| <= 0.2%`,
		"| variant | ns/item | B/item | allocs/item | this ns ÷ evolve ns |",
		"| evolve | 240 | 90.0 | 1.00 | 1.00× |",
		"| channels | 110 | 8.00 | 0 | 0.46× |",
		"| variant | ns/msg | B/msg | allocs/msg | msg/s | evolve msg/s ÷ this msg/s |",
		"| protoactor | 141 | 6.00 | 0 | 4,000,000 | 0.25× |",
		"| evolve/100000 | 9937 | +0.250 | 100,250 |",
		"| 1000/s | -0.100 | +0.010 |",
		"| 1000/s | -12.110 |  |",
		"| unbounded | 106,792 | 80.0 | 8.00× |",
		"| adaptive | 460,820 | 2000 | 2.00 | 0.98× |",
		"| fixed-2 | 482,243 | 2050 |  | 1.00× |",
		"| benchmark | what | items/s (msg/s) | ÷ raw msg/s | allocs/item on the master | B/item on the master | ns/item | CPU ns/item, both sides | start-ms |",
		"| RemoteRaw | raw protoactor, one way | 1,000,000 | 1.00× | 5.03 | 300 | 1000 | 2200 | 110 |",
		"| Remote/workers-1 | remote stage, 1 worker | 200,000 | 0.20× | 12.0 | 1500 | 5000 | 5000 | 150 |",
		"| Remote/workers-2 | remote stage, 2 workers | 250,000 | 0.25× | 1.50 | 1400 | 4000 | 2200 | 140 |",
		"| remote, 2 workers >= 100,000 items/s | 250,000 items/s | met |",
		"| variant | items/s | ÷ raw JetStream items/s (add: ÷ raw-publish-like; raw-publish-like: ÷ raw-publish) |",
		"| add | 90,000 | 0.90× |",
		"| raw-publish-like | 100,000 | 0.91× |",
		"| raw-publish | 110,000 |  |",
		"| many in flight: CPU per item <= 1.25× goroutines and a semaphore at 100, 1,000 and 10,000 | 1.20× / 1.10×, 1.20× / 1.10×, 1.33× / 1.30× (in order / unordered) | not met |",
		"(theirs 0.60× of the ideal: not held)",
		"| durable | 80,000 | 0.53× |",
		"| durable-sync | 4000 | 0.03× |",
		"| raw | 150,000 | 1.00× |",
		"| durable chain >= 50,000 items/s | 80,000 items/s | met |",
		"## benchstat",
		"Chain/evolve-2   240n ± 20%",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(md)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errShort }

var errShort = errors.New("short write")

func TestRenderReturnsTheWritersError(t *testing.T) {
	err := report.Render(failingWriter{}, report.Report{Medians: report.Summarize(parse(t).Results)})
	if !errors.Is(err, errShort) {
		t.Errorf("Render = %v, want the writer's error", err)
	}
}

func TestRunsOneAfterAnotherMakeOneMedian(t *testing.T) {
	// bench/run runs go test once per count, so the output repeats its
	// header and its PASS lines.
	const out = `goos: linux
BenchmarkAdaptiveCPU/adaptive-2 	1	400000 ns/op	2000 items/s	2.000 limit
BenchmarkAdaptiveCPU/fixed-2-2  	1	400000 ns/op	2100 items/s
PASS
ok  	github.com/evolvekit/evolve/bench	10.0s
goos: linux
BenchmarkAdaptiveCPU/adaptive-2 	1	400000 ns/op	2200 items/s	2.000 limit
BenchmarkAdaptiveCPU/fixed-2-2  	1	400000 ns/op	2000 items/s
PASS
ok  	github.com/evolvekit/evolve/bench	10.0s
goos: linux
BenchmarkAdaptiveCPU/adaptive-2 	1	400000 ns/op	2100 items/s	2.000 limit
BenchmarkAdaptiveCPU/fixed-2-2  	1	400000 ns/op	1900 items/s
PASS
`
	o, err := report.Parse(strings.NewReader(out), 2)
	if err != nil {
		t.Fatal(err)
	}
	m := report.Summarize(o.Results)
	if v, _ := m.Get("AdaptiveCPU/adaptive", "items/s"); v != 2100 {
		t.Errorf("adaptive's median = %v, want 2100", v)
	}
	// Run by run 2000/2100, 2200/2000 and 2100/1900: the median is 1.1;
	// the medians' ratio, 2100/2000, would be 1.05.
	if r, best, ok := report.AdaptiveRatio(m); !ok || best != "fixed-2" || r != 2200.0/2000 {
		t.Errorf("AdaptiveRatio = %v, %q, %v; want %v, the median of the runs' ratios", r, best, ok, 2200.0/2000)
	}

	// A fourth run of adaptive alone (bench/run -append): the runs no
	// longer pair up, and the ratio is that of the medians.
	again, err := report.Parse(strings.NewReader("BenchmarkAdaptiveCPU/adaptive-2 	1	400000 ns/op	2300 items/s\n"), 2)
	if err != nil {
		t.Fatal(err)
	}
	m = report.Summarize(append(o.Results, again.Results...))
	if r, ok := m.Over("AdaptiveCPU/adaptive", "items/s", "AdaptiveCPU/fixed-2", "items/s"); !ok || r != 2150.0/2000 {
		t.Errorf("Over with 4 runs against 3 = %v, %v; want %v, the medians' ratio", r, ok, 2150.0/2000)
	}
	if _, ok := m.Over("AdaptiveCPU/adaptive", "items/s", "AdaptiveCPU/fixed-3", "items/s"); ok {
		t.Error("Over a benchmark that did not run")
	}
}

func TestRenderComparesEachScaleVariantWithGoroutinesAtItsLimit(t *testing.T) {
	out, err := report.Parse(strings.NewReader(`BenchmarkScale/limit=10/evolve-2 	       1	   1000 ns/op	       900.0 items/s	 4.0 peak-MB
BenchmarkScale/limit=10/goroutines-2 	       1	   1000 ns/op	      1000 items/s	 1.0 peak-MB
BenchmarkScale/limit=1000/evolve-2 	       1	   1000 ns/op	     45000 items/s	 30 peak-MB
BenchmarkScale/limit=1000/goroutines-2 	       1	   1000 ns/op	     90000 items/s	 6.0 peak-MB
`), 2)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := report.Render(&buf, report.Report{Medians: report.Summarize(out.Results)}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Scale", "| limit=10/evolve | 1000 | 900 | 4.00 | 0.90× |", "| limit=1000/evolve | 1000 | 45,000 | 30.0 | 0.50× |"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestSharedRateTargetsAndTable(t *testing.T) {
	out, err := report.Parse(strings.NewReader(`BenchmarkSharedRate/1000/local-2 	1	997062 ns/op	-0.01 err%	0.2 first-ms	999.9 items/s
BenchmarkSharedRate/10000/local-2 	1	99709 ns/op	-0.03 err%	0.07 first-ms	9997 items/s
BenchmarkSharedRate/100000/local-2 	1	9996 ns/op	-0.2 err%	0.18 first-ms	99800 items/s
BenchmarkSharedRate/1000/shared-2 	1	1000556 ns/op	-0.02 err%	1.5 first-ms	999.8 items/s
BenchmarkSharedRate/10000/shared-2 	1	100053 ns/op	-0.1 err%	1.6 first-ms	9990 items/s
BenchmarkSharedRate/100000/shared-2 	1	13835 ns/op	-15 err%	4.9 first-ms	85000 items/s
`), 2)
	if err != nil {
		t.Fatal(err)
	}
	m := report.Summarize(out.Results)
	if r, ok := report.SharedRateRatio(m, "1000"); !ok || r != 999.8/999.9 {
		t.Errorf("SharedRateRatio(1000) = %v, %v", r, ok)
	}
	for _, tg := range report.Targets(m) {
		if strings.HasPrefix(tg.Goal, "shared rate") && tg.Verdict() != "not met" {
			t.Errorf("with -15%% and 0.85× at 100,000/s, %s is %s (%s)", tg.Goal, tg.Verdict(), tg.Figure)
		}
	}
	var buf bytes.Buffer
	if err := report.Render(&buf, report.Report{Medians: m}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"## SharedRate",
		"| rate | local items/s | local err% | shared items/s | shared err% | shared ÷ local items/s | shared first-ms | local first-ms |",
		"| 1000/s | 1000 | -0.010 | 1000 | -0.020 | 1.00× | 1.50 | 0.2 |",
		"| 100000/s | 99,800 | -0.200 | 85,000 | -15.000 | 0.85× | 4.90 | 0.18 |",
		"| shared rate \\|err\\| <= 0.5% at 1,000, 10,000 and 100,000/s (one process) | -0.020%, -0.100%, -15.000% | not met |",
		"| shared rate >= 0.9× a local rate at each rate (items/s) | 1.00×, 1.00×, 0.85× | not met |",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, buf.String())
		}
	}
}
