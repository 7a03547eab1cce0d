package rate

// Item is what the agent's input queue holds: a value and the tokens it
// costs. A rate agent builds Items from the values posted to it, calling
// [Config.Cost]; a program that drives [Evolve] itself builds them directly.
// Only Value is emitted.
//
// The zero Cost counts as 1, so Item[T]{Value: v} is an item of cost 1. A
// Cost that is negative or NaN also counts as 1, and one above the burst
// counts as the burst (the item waits for a full bucket): a rate agent's
// handle refuses such costs at Post, and [Evolve] never lets them wedge the queue.
type Item[T any] struct {
	Value T
	Cost  float64
}

// price returns the tokens it takes to let it through a bucket of the given
// burst. A Cost that is not a positive number counts as 1; a Cost above the
// burst counts as the burst, so the item waits for a full bucket instead of
// forever (the burst may have shrunk since the item was posted). A burst
// of 0, a Shared limit's for a process that holds no share, holds no
// token, and an item still costs at least the smaller of its cost and 1.
func (it Item[T]) price(burst int) float64 {
	c := it.Cost
	if !(c > 0) {
		c = 1
	}
	return min(c, float64(max(burst, 1)))
}
