package core

import "github.com/evolvekit/evolve/internal/safe"

// sinkDeliver hands values to sink one at a time; a value whose sink call
// panics is lost, the others are not, and the first panic is returned.
func sinkDeliver[O any](sink func(O)) func([]O) (int, error) {
	if sink == nil {
		return func([]O) (int, error) { return 0, nil }
	}
	return func(values []O) (int, error) {
		var first error
		for i := 0; i < len(values); i++ {
			if err := sinkFrom(sink, values, &i); err != nil && first == nil {
				first = err
			}
		}
		return 0, first
	}
}

// sinkFrom hands values to sink from *i on, under one deferred recover
// rather than one a value. A panic leaves *i at the value whose call
// panicked, and returns it as an error.
func sinkFrom[O any](sink func(O), values []O, i *int) (err error) {
	defer safe.Recover(&err)
	for ; *i < len(values); *i++ {
		sink(values[*i])
	}
	return nil
}
