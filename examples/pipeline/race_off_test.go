//go:build !race

package main

// underRace is true in a test binary built with -race.
const underRace = false
