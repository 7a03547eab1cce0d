// Package bench holds benchmarks of evolve against what a Go programmer would
// pick instead. Its own module keeps the peers out of evolve's dependencies.
package bench
