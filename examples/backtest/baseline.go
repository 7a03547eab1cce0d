package main

import (
	"fmt"
	"time"
)

// invalid is the error a baseline controller's Validate returns for a
// setting out of range; adaptive.NewState reports it as an
// adaptive.ErrConfig.
func invalid(format string, args ...any) error { return fmt.Errorf(format, args...) }

// clamp brings n within [lo, hi].
func clamp(n, lo, hi int) int { return min(max(n, lo), hi) }

// or returns v, or def when v is zero.
func or[T int | float64 | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}
