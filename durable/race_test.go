package durable_test

import "testing"

// skipUnderRace skips a test of whole processes and servers under the race
// detector, where it takes several times as long: the race pass checks
// the code the other tests run in one process, and these run in the plain
// pass that the README's command makes.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if underRace {
		t.Skip("a test of processes and servers: it runs without -race")
	}
}
