//go:build race

package fair

// seeds is how many random fleets the property test runs: fewer under the
// race detector, which the Queue, used by one goroutine, gains nothing from.
const seeds = 40
