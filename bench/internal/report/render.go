package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Machine describes where the benchmarks ran.
type Machine struct {
	CPU    string // the model, as the "cpu:" line of the output names it
	Cores  int
	GOOS   string
	GOARCH string
	Go     string // the Go version, as "go1.26.8"
}

// String returns "CPU, N cores, GOOS/GOARCH, Go".
func (m Machine) String() string {
	return fmt.Sprintf("%s, %d cores, %s/%s, %s", m.CPU, m.Cores, m.GOOS, m.GOARCH, m.Go)
}

// Report is everything docs/benchmarks.md shows.
type Report struct {
	Date    time.Time
	Machine Machine
	// Command is the command that produced the output, as run.
	Command string
	// Load says how busy the machine was: its load averages when the run
	// started and ended, say, or "" when unknown.
	Load string
	// Raw is the path of the raw output, relative to the report, or "".
	Raw string
	// Medians are the figures.
	Medians Medians
	// Benchstat is benchstat's summary of the raw output, or "" when it was
	// not run.
	Benchstat string
}

// Render writes r as Markdown to w.
func Render(w io.Writer, r Report) error {
	p := &printer{w: w}
	p.header(r)
	p.targets(Targets(r.Medians))
	seen := map[string]bool{}
	for _, f := range families {
		seen[f.name] = true
		for _, name := range f.also {
			seen[name] = true
		}
		p.family(f, r.Medians)
	}
	for _, name := range familyNames(r.Medians) {
		if !seen[name] {
			p.family(family{name: name, about: "A benchmark this report has no description of."}, r.Medians)
		}
	}
	if r.Benchstat != "" {
		p.printf("## benchstat\n\nThe same runs as benchstat summarises them: the median and the 95%% confidence\ninterval over the counts, one table per unit (it needs 6 runs or more for an\ninterval: `bench/run -count 6`).\n\n<details><summary>benchstat's output</summary>\n\n```\n%s\n```\n\n</details>\n", strings.TrimRight(r.Benchstat, "\n"))
	}
	return p.err
}

// printer writes Markdown and remembers the first error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *printer) header(r Report) {
	p.printf("# Benchmarks\n\n")
	p.printf("evolve side by side with what a Go programmer would pick instead: hand-written\n")
	p.printf("channels, conc, errgroup, ants, a bare protoactor actor, x/time/rate,\n")
	p.printf("uber-go/ratelimit and raw protoactor remote. The benchmarks are in\n")
	p.printf("[bench](../bench) (a module of its own; its package documentation and its\n")
	p.printf("benchmarks' doc comments say what each variant does); this file is written by\n")
	p.printf("`bench/run`. A benchmark reports; it does not fail.\n\n")
	p.printf("- Date: %s (when the report was written)\n", r.Date.UTC().Format("2006-01-02 15:04 UTC"))
	p.printf("- Machine: %s\n", r.Machine)
	p.printf("- Command: `%s`\n", r.Command)
	if r.Load != "" {
		p.printf("- Load average: %s (other work on the machine skews the figures)\n", r.Load)
	}
	runs := runCounts(r.Medians)
	p.printf("- Each figure is the median of %s per benchmark.", runs)
	if r.Raw != "" {
		p.printf(" Raw output: [%s](%s).", r.Raw, r.Raw)
	}
	p.printf("\n- One op is one item (one message in Agent and RemoteRaw): ns/item, B/item and allocs/item\n")
	p.printf("  are the testing package's ns/op, B/op and allocs/op.\n")
	p.printf("- A ratio of two benchmarks is the median of their ratios run by run: each run of go test\n")
	p.printf("  runs both, a moment apart, so the machine's speed changing between runs moves both sides.\n\n")
}

// runCounts says how many runs each benchmark had: "5 runs", or a range.
func runCounts(m Medians) string {
	lo, hi := 0, 0
	for i, name := range m.Names {
		n := m.Runs[name]
		if i == 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	switch {
	case lo == hi && lo == 1:
		return "1 run (so it is the run itself)"
	case lo == hi:
		return fmt.Sprintf("%d runs", lo)
	default:
		return fmt.Sprintf("%d to %d runs", lo, hi)
	}
}

func (p *printer) targets(ts []Target) {
	p.printf("## Targets\n\n")
	p.row([]string{"target", "measured", "verdict"})
	p.row([]string{"---", "---", "---"})
	for _, t := range ts {
		p.row([]string{t.Goal, t.Figure, t.Verdict()})
	}
	p.printf("\n")
}

// family renders one benchmark family: its description, a table of every
// figure of every variant, and its ratio column and extra tables, if any.
func (p *printer) family(f family, m Medians) {
	variants := variantsOf(m, f.name)
	if f.table != nil {
		if len(variants) > 0 || slices.ContainsFunc(f.also, func(name string) bool { return ran(m, name) }) {
			p.printf("## %s\n\n%s\n\n", f.name, f.about)
			f.table(p, m)
		}
		return
	}
	if len(variants) == 0 {
		return
	}
	p.printf("## %s\n\n%s\n\n", f.name, f.about)
	units := unitsOf(m, f.name, variants)
	head := []string{"variant"}
	for _, u := range units {
		head = append(head, label(u, f.per))
	}
	if f.ratio != nil {
		head = append(head, f.ratio.header)
	}
	p.row(head)
	p.row(slices.Repeat([]string{"---"}, len(head)))
	for _, v := range variants {
		cells := []string{v}
		for _, u := range units {
			cells = append(cells, cell(m, f.name+"/"+v, u))
		}
		if f.ratio != nil {
			cells = append(cells, f.ratio.cell(m, v))
		}
		p.row(cells)
	}
	p.printf("\n")
	if f.ratio != nil && f.ratio.about != "" {
		p.printf("%s\n\n", f.ratio.about)
	}
	if f.extra != nil {
		f.extra(p, m)
	}
}

// row writes one table row, escaping the pipes inside cells.
func (p *printer) row(cells []string) {
	escaped := make([]string, len(cells))
	for i, c := range cells {
		escaped[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	p.printf("| %s |\n", strings.Join(escaped, " | "))
}

// cell formats one figure, or "" when the benchmark did not report it.
func cell(m Medians, name, unit string) string {
	v, ok := m.Get(name, unit)
	switch {
	case !ok:
		return ""
	case unit == "err%":
		return Signed(v)
	default:
		return Num(v)
	}
}

// label names a unit in a table heading: per op becomes per item (or per
// message).
func label(unit, per string) string {
	if per == "" {
		per = "item"
	}
	if base, ok := strings.CutSuffix(unit, "/op"); ok {
		return base + "/" + per
	}
	return unit
}

// unitOrder is the order of the columns; other units follow, sorted.
var unitOrder = []string{"ns/op", "B/op", "allocs/op", "msg/s", "err%", "items/s", "peak-heap-MB", "ms/job", "cores", "limit"}

func unitsOf(m Medians, fam string, variants []string) []string {
	set := map[string]bool{}
	for _, v := range variants {
		for u := range m.Values[fam+"/"+v] {
			set[u] = true
		}
	}
	var units []string
	for _, u := range unitOrder {
		if set[u] {
			units = append(units, u)
			delete(set, u)
		}
	}
	var rest []string
	for u := range set {
		rest = append(rest, u)
	}
	slices.Sort(rest)
	return append(units, rest...)
}

// ran reports whether fam ran: a benchmark named fam, or fam/something.
func ran(m Medians, fam string) bool {
	return m.Runs[fam] > 0 || len(variantsOf(m, fam)) > 0
}

// variantsOf returns the names of fam's benchmarks without the family prefix,
// in the order they ran.
func variantsOf(m Medians, fam string) []string {
	var vs []string
	for _, name := range m.Names {
		if v, ok := strings.CutPrefix(name, fam+"/"); ok {
			vs = append(vs, v)
		}
	}
	return vs
}

// familyNames returns the families in m, in the order they first ran.
func familyNames(m Medians) []string {
	var names []string
	for _, name := range m.Names {
		fam, _, _ := strings.Cut(name, "/")
		if !slices.Contains(names, fam) {
			names = append(names, fam)
		}
	}
	return names
}
