package parallel

// Result is what the agent emits for one item: the item's position in the
// input and what its work returned. Err is nil for work that succeeded; for
// work that panicked it is an *agent.PanicError carrying the stack. Value is
// whatever the work returned, even alongside an error.
type Result[Out any] struct {
	// Seq is the item's position in the input, counted from 0.
	Seq   uint64
	Value Out
	Err   error
}
