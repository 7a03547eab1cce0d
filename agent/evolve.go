package agent

// Evolve is an agent's whole behaviour: given its state and one message, the
// next state and the effects to perform, in order.
//
// An Evolve function must be pure. It must not start goroutines, use
// channels, read a clock, use global random numbers, do I/O, log, or call user
// code; time arrives in the message's At field. It must not keep references
// into the message or the state it was given that it later mutates: treat
// slices as owned by whoever made them, and copy before changing.
type Evolve[S any] func(S, Msg) (S, []Effect)
