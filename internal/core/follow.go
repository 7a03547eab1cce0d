package core

import "github.com/evolvekit/evolve/internal/safe"

// keptBy says, for each of values, whether MapOut's f keeps it: what a
// traced chain's Hand keeps in step with the values (see package trace).
// It calls f once more on each, so it runs only when a Hand holds
// contexts.
func keptBy[O, P any](values []O, f func(O) (P, bool)) []bool {
	keep := make([]bool, len(values))
	for i, v := range values {
		_ = safe.Do(func() { _, keep[i] = f(v) })
	}
	return keep
}

// admitted says, for each of items, whether MapIn's f takes it, as
// keptBy does for MapOut.
func admitted[I, J any](items []I, f func(I) (J, error)) []bool {
	ok := make([]bool, len(items))
	for i, v := range items {
		_, err := convert(f, v)
		ok[i] = err == nil
	}
	return ok
}
