package intake

import "time"

// Backoff is the delay before attempt n+1 of an item that failed: 100 ms
// doubling to 10 s.
func Backoff(n uint64) time.Duration {
	d := 100 * time.Millisecond
	for i := uint64(1); i < n && d < 10*time.Second; i++ {
		d *= 2
	}
	return min(d, 10*time.Second)
}
