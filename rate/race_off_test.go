//go:build !race

package rate_test

// raceOn says the race detector is on: the longer property tests run
// fewer cases under it.
const raceOn = false
