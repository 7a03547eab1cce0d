package buffer

// Item is an item of a buffer whose batches are cut by weight, with its
// weight: what the agent's input queue holds when [Config.MaxWeight] is
// set. The agent builds Items from the values posted to it, calling
// [Config.Weight]; a program that drives [Evolve] itself builds them
// directly. Only Value goes into the batch. A negative Weight counts as 0:
// a buffer agent's handle refuses it at Post. Evolve also takes plain items
// (an agent.Input[T]), which weigh nothing.
type Item[T any] struct {
	Value  T
	Weight int
}

// weighItem builds the Item for v, checking the weight weigh gives it.
func weighItem[T any](weigh func(T) int, v T) (Item[T], error) {
	w := weigh(v)
	if w < 0 {
		return Item[T]{}, errsWeight(w)
	}
	return Item[T]{Value: v, Weight: w}, nil
}
