// Package report turns the output of the benchmarks of package bench into
// docs/benchmarks.md: it parses the text `go test -bench` writes (with any
// -count), takes the median of each figure over the runs, and renders one
// table per benchmark family with every figure, the ratios of evolve to the
// tools it is compared with, and whether each target is met.
//
// The program in bench/cmd/report drives it; bench/run runs the benchmarks and
// then that program.
package report
