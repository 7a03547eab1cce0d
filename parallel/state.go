package parallel

import (
	"cmp"
	"slices"

	"github.com/evolvekit/evolve/internal/fifo"
)

// State is everything a parallel agent knows between two messages: its
// settings, the items waiting to start, the work in flight, the results
// waiting to be emitted, the demand it holds and its counts.
//
// A State is a value. [Evolve] never changes the State it is given, nor any
// memory that State can reach: it copies the small lists it changes (the work
// in flight and the held results, neither much longer than the limit) and
// keeps waiting items in a persistent queue. So an earlier State can be kept,
// compared or evolved again, and States are safe to share between
// goroutines. The zero State is not usable; build one with [NewState].
type State[In, Out any] struct {
	limit     int
	queue     int // the input bound, reported in Status
	unordered bool

	waiting  fifo.Queue[In] // accepted, not started; the oldest has Seq started
	accepted uint64         // items taken in so far: the next item's Seq
	started  uint64         // items started so far
	running  []uint64       // the Seqs (and Start IDs) of work in flight, ascending
	held     []Result[Out]  // finished, not emitted: by Seq in input order, else by finish
	emitted  uint64         // results emitted so far
	demand   int            // values downstream will still accept

	done, failed int
	firstErr     error
	closed       bool
	finished     bool
}

// NewState returns the initial State for cfg, or an error naming the first
// setting of cfg that is out of range. It holds no demand: the runtime's
// first [agent.Pull] gives it some, and until then it starts nothing.
func NewState[In, Out any](cfg Config) (State[In, Out], error) {
	if err := cfg.validate(); err != nil {
		return State[In, Out]{}, err
	}
	return State[In, Out]{limit: cfg.Limit, queue: cfg.queue(), unordered: cfg.Unordered}, nil
}

// isRunning reports whether the work with this Start ID is in flight.
func (s State[In, Out]) isRunning(id uint64) bool {
	_, ok := slices.BinarySearch(s.running, id)
	return ok
}

// drained reports whether nothing accepted is left: none waiting, running or
// held.
func (s State[In, Out]) drained() bool {
	return s.waiting.Len() == 0 && len(s.running) == 0 && len(s.held) == 0
}

// without returns a copy of the sorted ids with id taken out; id must be in.
func without(ids []uint64, id uint64) []uint64 {
	i, _ := slices.BinarySearch(ids, id)
	out := make([]uint64, 0, len(ids)-1)
	out = append(out, ids[:i]...)
	return append(out, ids[i+1:]...)
}

// withResult returns a copy of held with r added: by Seq when ordered, at the
// end when not.
func withResult[Out any](held []Result[Out], r Result[Out], ordered bool) []Result[Out] {
	i := len(held)
	if ordered {
		i, _ = slices.BinarySearchFunc(held, r.Seq, func(h Result[Out], seq uint64) int {
			return cmp.Compare(h.Seq, seq)
		})
	}
	out := make([]Result[Out], 0, len(held)+1)
	out = append(out, held[:i]...)
	out = append(out, r)
	return append(out, held[i:]...)
}
