package remote

// The master's evolve learns about its workers through agent.Event messages
// carrying the types below, which the master's node sends it, and asks for
// messages to workers with agent.Send effects carrying a Dispatch. A
// WorkerID is given by the node when a worker registers, and never reused.

// WorkerID names one registered worker for as long as the stage runs.
type WorkerID uint64

// Joined says a worker registered: its address, how many items it works on
// at once, and the tags of the resources it has.
type Joined struct {
	Worker WorkerID
	Addr   string
	Slots  int
	Tags   []string
}

// Asked says a worker has N more free slots: it asks for N more items. A
// worker asks for its Slots when it joins, and for one more each time an
// item's work ends.
type Asked struct {
	Worker WorkerID
	N      int
}

// Returned brings results a worker sent back. Asked, when positive, is
// how many more free slots the worker has, as in an [Asked]: a worker asks
// again in the message that brings its results.
type Returned[O any] struct {
	Worker  WorkerID
	Results []Outcome[O]
	Asked   int
}

// Outcome is the result of one attempt at an item: its value, or the error
// its work returned (or the error decoding its value).
type Outcome[O any] struct {
	Item    uint64
	Attempt int
	Value   O
	Err     error
}

// Left says a worker left gracefully: it will send nothing more. Every
// item still leased to it is requeued, and that is no failed attempt.
// Handed lists the items the worker held as it left; items dispatched to it
// while it was leaving are not among them, and are requeued all the same.
type Left struct {
	Worker WorkerID
	Handed []uint64
}

// Lost says a worker died: its process ended, or its connection broke. Its
// items are requeued at once, each as a failed attempt.
type Lost struct {
	Worker WorkerID
}

// Dispatch hands items to a worker: the master's evolve asks for it with an
// agent.Send, within the free slots the worker asked for.
type Dispatch[I any] struct {
	Worker WorkerID
	Tasks  []Task[I]
}

// Task is one attempt at one item: the item's Seq, which attempt this is
// (from 1), and the item.
type Task[I any] struct {
	Item    uint64
	Attempt int
	Value   I
}
