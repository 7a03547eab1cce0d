package book

import "time"

// The vocabulary of a remote stage, one name a concept. An item is what
// the stage accepted, numbered by its Seq. A task is one attempt at one
// item, handed to a worker; its outcome is what the attempt came to on the
// worker, a value or an error. The item's result, emitted once, is the
// outcome that counted, or its last error.
//
// The book learns about its workers through agent.Event messages carrying
// the types below, which the master's actor sends it, and asks for what
// workers are sent with agent.Send effects carrying a Dispatch, an Expel
// or a Prefetch, what is logged with one carrying a Hop, and what the
// program is told with one carrying a Want.

// WorkerID names one registered worker for as long as the stage runs: the
// master's actor gives it as the worker registers, and never reuses it.
type WorkerID uint64

// Joined says a worker registered: its address, how many items it works on
// at once, the tags of the resources it has, and the prefetch the master's
// actor granted it: it asks for as many tasks as it has slots free and
// prefetch (see Asked).
type Joined struct {
	Worker   WorkerID
	Addr     string
	Slots    int
	Tags     []string
	Prefetch int
}

// Asked says a worker has N more free slots: it asks for N more tasks. A
// worker asks for its slots and prefetch as it joins, and for one more
// each time a task's work ends.
type Asked struct {
	Worker WorkerID
	N      int
}

// Outcomes brings the outcomes of tasks a worker sent back, from its
// address Addr. Asked, when positive, is how many more free slots the
// worker has, as in an Asked: a worker asks again in the message that
// brings its outcomes.
type Outcomes[O any] struct {
	Worker   WorkerID
	Addr     string
	Outcomes []Outcome[O]
	Asked    int
}

// Outcome is what one task came to: its value, or the error its work
// returned (or the error decoding its value), and what the work took as
// its worker measured it (0 if it did not say). Steps are the tags of the
// moves the worker made itself on the way, holding their tags (see
// move.go).
type Outcome[O any] struct {
	Item    uint64
	Attempt int
	Value   O
	Err     error
	Took    time.Duration
	Steps   []string
}

// Moves brings the tasks whose work asked to go on elsewhere, from the
// worker Worker at Addr; the same message's Outcomes says the slots they
// freed.
type Moves[I any] struct {
	Worker WorkerID
	Addr   string
	Moves  []Move[I]
}

// Move is one task's ask to go on, on a worker with Tag, with Next as its
// item's input; Steps and Took are as in an Outcome.
type Move[I any] struct {
	Item    uint64
	Attempt int
	Tag     string
	Next    I
	Steps   []string
	Took    time.Duration
}

// Left says a worker left gracefully: it will send nothing more. Every
// task it still holds is queued again, and that is no failed attempt.
// Handed lists the items the worker held as it left; tasks sent to it
// while it was leaving are not among them, and are queued again all the
// same.
type Left struct {
	Worker WorkerID
	Handed []uint64
}

// Lost says a worker died: its process ended, or its connection broke. Its
// tasks are queued again at once, each as a failed attempt but for those
// that waited for a slot on it (prefetched), which never started.
type Lost struct {
	Worker WorkerID
}

// Beat says a worker is alive, and has nothing else to say.
type Beat struct {
	Worker WorkerID
}

// Refused says the master's node or actor refused N messages from peers
// for this stage since it last said so: malformed, or not from whom they
// name.
type Refused struct {
	N int
}

// Dispatch hands tasks to a worker, within the free slots it asked for.
type Dispatch[I any] struct {
	Worker WorkerID
	Tasks  []Task[I]
}

// Task is one attempt at one item: the item's Seq, which attempt this is
// (from 1), the item, and how many times it has moved.
type Task[I any] struct {
	Item    uint64
	Attempt int
	Value   I
	Hops    int
}

// Hop asks the master's actor to log a move the book took: item Item's
// Hops-th, from the worker at From to a worker with Tag; Local when the
// worker held the tag and went on itself.
type Hop struct {
	Item      uint64
	From, Tag string
	Hops      int
	Local     bool
	Next      any // the item's next input, nil for a Local move
}

// Prefetch asks the master's actor to grant the workers that register
// from then on N tasks beyond their slots, in the place of the prefetch
// it was opened with: a book behind a pacer grants none (see pace.go).
type Prefetch struct {
	N int
}

// Expel asks the master's actor to forget a worker the book gave up for
// its silence: its later messages are refused, and a Beat it sends is
// answered with the news, so that it registers again.
type Expel struct {
	Worker WorkerID
}

// Want asks the master's actor to tell the program that the book now wants
// Workers workers for the items of Tag ("" for the untagged): see package want.
type Want struct {
	Tag     string
	Workers int
}
