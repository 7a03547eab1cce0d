package intake

import (
	"testing"
	"time"
)

// TestBackoffDoublesToTenSeconds checks the delays of the first attempts
// and the cap.
func TestBackoffDoublesToTenSeconds(t *testing.T) {
	for n, want := range map[uint64]time.Duration{0: 100 * time.Millisecond, 1: 100 * time.Millisecond, 2: 200 * time.Millisecond,
		4: 800 * time.Millisecond, 8: 10 * time.Second, 1000: 10 * time.Second} {
		if got := Backoff(n); got != want {
			t.Errorf("Backoff(%d) = %v; want %v", n, got, want)
		}
	}
}
