package remote

// The master's evolve learns about its workers through agent.Event messages
// carrying the types below, which its link sends it, and asks for messages
// to workers with agent.Send effects carrying a dispatch. A workerID is
// given by the link when a worker registers, and never reused.

// workerID names one registered worker for as long as the stage runs.
type workerID uint64

// joined says a worker registered: its address, how many items it works on
// at once, and the tags of the resources it has.
type joined struct {
	Worker workerID
	Addr   string
	Slots  int
	Tags   []string
}

// asked says a worker has N more free slots: it asks for N more items. A
// worker asks for its Slots when it joins, and for one more each time an
// item's work ends.
type asked struct {
	Worker workerID
	N      int
}

// returned brings results a worker sent back. Asked, when positive, is
// how many more free slots the worker has, as in an asked: a worker asks
// again in the message that brings its results.
type returned[O any] struct {
	Worker  workerID
	Results []outcome[O]
	Asked   int
}

// outcome is the result of one attempt at an item: its value, or the error
// its work returned (or the error decoding its value).
type outcome[O any] struct {
	Item    uint64
	Attempt int
	Value   O
	Err     error
}

// left says a worker left gracefully: it will send nothing more. Every
// item still leased to it is requeued, and that is no failed attempt.
// Handed lists the items the worker held as it left; items dispatched to it
// while it was leaving are not among them, and are requeued all the same.
type left struct {
	Worker workerID
	Handed []uint64
}

// lost says a worker died: its process ended, or its connection broke. Its
// items are requeued at once, each as a failed attempt but for those that
// waited for a slot on it (prefetched), which never started.
type lost struct {
	Worker workerID
}

// refused says the master's node or link refused N messages from peers
// for this stage since it last said so: malformed, or not from whom they
// name.
type refused struct {
	N int
}

// dispatch hands items to a worker: the master's evolve asks for it with an
// agent.Send, within the free slots the worker asked for.
type dispatch[I any] struct {
	Worker workerID
	Tasks  []task[I]
}

// task is one attempt at one item: the item's Seq, which attempt this is
// (from 1), and the item. The master sends it, and the worker decodes it.
type task[I any] struct {
	Item    uint64
	Attempt int
	Value   I
}
