package report_test

import (
	"fmt"
	"strings"

	"github.com/evolvekit/evolve/bench/internal/report"
)

// Parse reads benchmark output, Summarize takes the median of each figure
// over the counts, and Targets says which goals the figures meet.
func Example() {
	output := `cpu: Intel(R) Xeon(R) Processor
BenchmarkChain/evolve-2     1000000   260 ns/op   40 B/op   1 allocs/op
BenchmarkChain/evolve-2     1000000   240 ns/op   40 B/op   1 allocs/op
BenchmarkChain/evolve-2     1000000   230 ns/op   40 B/op   1 allocs/op
BenchmarkChain/channels-2   1000000   100 ns/op    8 B/op   0 allocs/op
BenchmarkChain/evolve-metrics-2 1000000 252 ns/op 40 B/op 1 allocs/op
BenchmarkAgent/evolve-2     1000000   300 ns/op   3000000 msg/s
BenchmarkAgent/protoactor-2 1000000   150 ns/op   6000000 msg/s
`
	out, err := report.Parse(strings.NewReader(output), 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := report.Summarize(out.Results)
	ns, _ := m.Get("Chain/evolve", "ns/op")
	fmt.Println("chain, median of", m.Runs["Chain/evolve"], "runs:", ns, "ns/item")
	for _, t := range report.Targets(m)[:6] {
		fmt.Printf("%s: %s (%s)\n", t.Goal, t.Verdict(), t.Figure)
	}
	// Output:
	// chain, median of 3 runs: 240 ns/item
	// chain <= 250 ns/item: met (240 ns/item)
	// chain <= 1 alloc/item: met (1.00 allocs/item)
	// chain <= 0.8× conc (ns/item): not measured (Chain/evolve or Chain/conc did not run)
	// chain <= 1.0× hand-written channels (ns/item): not met (2.40×)
	// chain with metrics <= 1.1× without (ns/item): met (1.05×)
	// one agent >= 0.5× raw protoactor (msg/s): met (0.50×)
}
