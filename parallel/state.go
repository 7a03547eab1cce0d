package parallel

import (
	"sort"

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

	waiting  fifo.Queue[In]          // accepted, not started; the oldest has Seq started
	accepted uint64                  // items taken in so far: the next item's Seq
	started  uint64                  // items started so far
	running  fifo.Queue[uint64]      // the Seqs (and Start IDs) of work in flight, ascending
	held     fifo.Queue[Result[Out]] // finished, not emitted: by Seq in input order, else by finish
	emitted  uint64                  // results emitted so far
	demand   int                     // values downstream will still accept

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
	i := s.runningAt(id)
	return i < s.running.Len() && s.running.At(i) == id
}

// runningAt returns the index in running of the first ID at least id.
func (s State[In, Out]) runningAt(id uint64) int {
	return sort.Search(s.running.Len(), func(i int) bool { return s.running.At(i) >= id })
}

// drained reports whether nothing is left: nothing waits, runs or is held.
func (s State[In, Out]) drained() bool {
	return s.waiting.Len() == 0 && s.running.Len() == 0 && s.held.Len() == 0
}

// withResult returns held with r added: by Seq when ordered, else last.
func withResult[Out any](held fifo.Queue[Result[Out]], r Result[Out], ordered bool) fifo.Queue[Result[Out]] {
	i := held.Len()
	if ordered {
		i = sort.Search(held.Len(), func(j int) bool { return held.At(j).Seq >= r.Seq })
	}
	return held.Insert(i, r)
}
