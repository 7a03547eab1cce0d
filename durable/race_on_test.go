//go:build race

package durable_test

// underRace is true in a test binary built with -race.
const underRace = true
