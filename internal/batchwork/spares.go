package batchwork

// spares is the result slices of an agent's batches that the runtime has
// taken back (see core.Spec.Recycle), for the next batches' results: a
// busy agent then makes no slice per batch. It is safe for concurrent use:
// workers take, the agent's rounds put back.
type spares[R any] chan []R

// kept is how many slices spares holds at most: about the batches in
// flight of an agent and the results waiting for its round.
const kept = 16

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
