// Command report writes docs/benchmarks.md from the output of the benchmarks
// of package bench. bench/run runs it; by hand:
//
//	go run ./cmd/report -in ../docs/benchmarks.txt -out ../docs/benchmarks.md \
//		-command 'bench/run' -raw benchmarks.txt [-benchstat FILE]
//
// It reads the raw `go test -bench` output, takes the median of every figure
// over the runs, and writes one table per benchmark family, the ratios of
// evolve to its peers and whether each target is met. The machine is this
// one: the CPU model from the output's "cpu:" line, the cores, GOOS/GOARCH and
// Go version of the process, so run it where the benchmarks ran.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/evolvekit/evolve/bench/internal/report"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	in := fs.String("in", "", "the raw benchmark output to read (required)")
	out := fs.String("out", "", "the Markdown file to write; standard output when empty")
	stat := fs.String("benchstat", "", "a file holding benchstat's output on the same runs, to include")
	command := fs.String("command", "bench/run", "the command that produced the output, as shown in the report")
	raw := fs.String("raw", "", "the raw output's path relative to the report, for a link; none when empty")
	load := fs.String("load", "", "how busy the machine was (its load averages at the start and the end of the run), as shown in the report")
	procs := fs.Int("procs", runtime.GOMAXPROCS(0), "the GOMAXPROCS the benchmarks ran with, whose suffix is stripped from their names")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *in == "" {
		return fmt.Errorf("-in is required")
	}
	text, err := os.ReadFile(*in)
	if err != nil {
		return err
	}
	parsed, err := report.Parse(bytes.NewReader(text), *procs)
	if err != nil {
		return err
	}
	if len(parsed.Results) == 0 {
		return fmt.Errorf("no benchmark results in %s", *in)
	}
	r := report.Report{
		Date:    time.Now(),
		Machine: machine(parsed.Config),
		Command: *command,
		Load:    *load,
		Raw:     *raw,
		Medians: report.Summarize(parsed.Results),
	}
	if *stat != "" {
		b, err := os.ReadFile(*stat)
		if err != nil {
			return err
		}
		r.Benchstat = string(b)
	}
	var buf bytes.Buffer
	if err := report.Render(&buf, r); err != nil {
		return err
	}
	if *out == "" {
		_, err = stdout.Write(buf.Bytes())
		return err
	}
	return os.WriteFile(*out, buf.Bytes(), 0o644)
}

// machine describes this machine, with the CPU model and platform the
// benchmark output names.
func machine(config map[string]string) report.Machine {
	m := report.Machine{
		CPU:    config["cpu"],
		Cores:  runtime.NumCPU(),
		GOOS:   config["goos"],
		GOARCH: config["goarch"],
		Go:     runtime.Version(),
	}
	if m.CPU == "" {
		m.CPU = "unknown CPU"
	}
	if m.GOOS == "" {
		m.GOOS = runtime.GOOS
	}
	if m.GOARCH == "" {
		m.GOARCH = runtime.GOARCH
	}
	return m
}
