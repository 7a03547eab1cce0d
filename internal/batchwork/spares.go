package batchwork

// spares is the result slices of an agent's batches that the runtime has
// taken back (see core.Spec.Recycle), for the next batches' results: a
// busy agent then makes no slice per batch. It is safe for concurrent use:
// workers take, the agent's rounds put back.
type spares[R any] chan []R

// kept is how many slices spares holds at most: about the batches one
// round of a busy agent finishes, and so starts again, with a limit in the
// thousands and work that waits (each on a worker that would otherwise
// make a slice per batch).
const kept = 1024

// newSpares returns an empty spares.
func newSpares[R any]() spares[R] { return make(spares[R], kept) }

// get returns a slice of n results: a spare one if there is one big
// enough, else a new one.
func (p spares[R]) get(n int) []R {
	select {
	case s := <-p:
		if cap(s) >= n {
			return s[:n]
		}
	default:
	}
	return make([]R, n)
}

// put takes back s, cleared so that it holds no result, unless spares is
// full.
func (p spares[R]) put(s []R) {
	clear(s)
	select {
	case p <- s[:0]:
	default:
	}
}
