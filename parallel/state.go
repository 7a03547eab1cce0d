package parallel

import (
	"sort"
	"time"

	"github.com/evolvekit/evolve/internal/fifo"
)

// State is everything a parallel agent knows between two messages: its
// settings, the items waiting to start, the batches in flight, the results
// waiting to be emitted, the demand it holds, how long its items have taken
// and its counts.
//
// A State is a value. [Evolve] never changes the State it is given, nor any
// memory that State can reach: it keeps its lists in persistent queues and
// copies what it changes in them. So an earlier State can be kept, compared
// or evolved again. Two States evolved from one share memory, so they must
// not be evolved on two goroutines at once (see [Evolve]). The zero State is
// not usable; build one with [NewState].
type State[In, Out any] struct {
	limit     int
	queue     int // the input bound, reported in Status
	unordered bool
	run       int // the most items a batch may hold

	waiting  fifo.Queue[In]          // accepted, not started; the oldest has Seq started
	accepted uint64                  // items taken in so far: the next item's Seq
	started  uint64                  // items started so far
	running  fifo.Queue[flight]      // the batches in flight, by ID (the Seq of their first item) ascending
	assigned int                     // the items of the batches in flight
	held     fifo.Queue[Result[Out]] // finished, not emitted: by Seq in input order, else by finish
	emitted  uint64                  // results emitted so far
	demand   int                     // values downstream will still accept

	cost   time.Duration // the time an item has taken, on average of late
	costed bool          // whether a batch has finished, so cost is known

	done, failed int
	firstErr     error
	closed       bool
	finished     bool
}

// flight is one batch in flight: its Start ID, which is the Seq of its
// first item, how many items it holds and when it started.
type flight struct {
	id uint64
	n  int
	at time.Time
}

// NewState returns the initial State for cfg, or an error naming the first
// setting of cfg that is out of range. It holds no demand: the runtime's
// first [agent.Pull] gives it some, and until then it starts nothing.
func NewState[In, Out any](cfg Config) (State[In, Out], error) {
	if err := cfg.validate(); err != nil {
		return State[In, Out]{}, err
	}
	return State[In, Out]{limit: cfg.Limit, queue: cfg.queue(), unordered: cfg.Unordered, run: cfg.run()}, nil
}

// flightOf returns the index in running of the batch with this Start ID.
func (s State[In, Out]) flightOf(id uint64) (int, bool) {
	i := sort.Search(s.running.Len(), func(i int) bool { return s.running.At(i).id >= id })
	return i, i < s.running.Len() && s.running.At(i).id == id
}

// drained reports whether nothing is left: nothing waits, runs or is held.
func (s State[In, Out]) drained() bool {
	return s.waiting.Len() == 0 && s.running.Len() == 0 && s.held.Len() == 0
}

// batch returns how many items the next batch may hold, before the share
// of the items that may start: one until a batch has finished, then as
// many as have taken [RunSpan] on average, within [1, run].
func (s State[In, Out]) batch() int {
	if s.run <= 1 || !s.costed {
		return 1
	}
	if s.cost <= 0 {
		return s.run
	}
	return int(min(max(RunSpan/s.cost, 1), time.Duration(s.run)))
}

// measured folds the time a batch of n items took into cost.
func (s State[In, Out]) measured(took time.Duration, n int) State[In, Out] {
	each := max(took, 0) / time.Duration(n)
	if !s.costed {
		s.cost, s.costed = each, true
	} else {
		s.cost += (each - s.cost) / 4
	}
	return s
}

// withResults returns held with rs added: in Seq order when ordered (rs
// holds consecutive Seqs), else last.
func withResults[Out any](held fifo.Queue[Result[Out]], rs []Result[Out], ordered bool) fifo.Queue[Result[Out]] {
	i := held.Len()
	if ordered && len(rs) > 0 {
		i = sort.Search(held.Len(), func(j int) bool { return held.At(j).Seq >= rs[0].Seq })
	}
	return held.Insert(i, rs...)
}
