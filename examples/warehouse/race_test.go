package main

import "testing"

// skipUnderRace skips a test of whole loads, with their API, queue and
// processes, under the race detector, where it takes several times as
// long: the race pass checks the code the shorter tests run, and these
// run in the plain pass that the README's command makes.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if underRace {
		t.Skip("a test of whole loads: it runs without -race")
	}
}
