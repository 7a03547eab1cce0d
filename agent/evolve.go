package agent

// Evolve is an agent's whole behaviour: given its state and one message, the
// next state and the effects to perform, in order.
//
// An Evolve function must be pure. It must not start goroutines, use
// channels, read a clock, use global random numbers, do I/O, log, or call user
// code; time arrives in the message's At field.
//
// A state is a value that is evolved once: the runtime and the test drivers
// pass each returned state to the next call and drop the old one, so a state
// may share slices with the state it came from. Slices in messages belong to
// the sender and slices in effects to the receiver: copy before changing.
// A message is the sender's too once evolve has returned, which may reuse
// its memory for the next: evolve keeps what it needs of a message, never
// the message itself.
type Evolve[S any] func(S, Msg) (S, []Effect)
