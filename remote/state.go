package remote

import (
	"slices"
	"time"

	"github.com/evolvekit/evolve/agent"
)

// State is everything the master of a remote stage knows between two
// messages: its settings, the items accepted and not yet emitted (queued by
// tag, leased to a worker, or holding a result), the registered workers,
// the leases and their deadlines, the demand it holds and its counts.
//
// A State is a handle on bookkeeping that [Evolve] updates in place, so
// that an item costs no allocation of its own: Evolve takes the State it is
// given, and the caller keeps only the one it returns (the same handle).
// An earlier State is not a snapshot: use [State.Clone] to keep one. A
// State must not be used on two goroutines at once. The zero State is not
// usable; build one with [NewState].
type State[I, O any] struct {
	b *book[I, O]
}

// book is the bookkeeping a State points to.
type book[I, O any] struct {
	dead []agent.DeadLetter // the items failed for good by the message in hand

	window, maxBatch, maxAttempts int
	unordered                     bool
	lease, tagWait                time.Duration
	tagOf                         func(I) string

	// items holds the items from Seq base on, up to the last accepted:
	// every one not yet emitted, and in unordered mode those emitted after
	// an earlier one that is not. In input order base is the next Seq to
	// emit.
	items    deque[entry[I, O]]
	base     uint64
	accepted uint64
	held     deque[uint64] // unordered: the Seqs of the held results, by finish
	nHeld    int           // results held
	queued   int           // items in lines
	leased   int           // items leased to a worker
	emitted  int
	demand   int
	back     int // input slots to give back after this message

	lines  []tagLine      // the queue of each tag; lines[0] is that of ""
	lineOf map[string]int // index in lines, by tag

	workers []member // registered, by ID
	next    WorkerID // where the next dispatch starts looking
	leases  deque[leaseEnd]
	timers  [2]pending // by timer tag - 1

	done, failed, requeued, retried, duplicates int
	firstErr                                    error
	closed, finished                            bool
}

// phase is where an accepted item is.
type phase uint8

const (
	phaseQueued  phase = iota // in its tag's line, waiting for a worker
	phaseLeased               // handed to a worker, its result awaited
	phaseHeld                 // its result is known, not yet emitted
	phaseEmitted              // passed on
)

// entry is one accepted item: where it is, and what it holds there.
type entry[I, O any] struct {
	value    I // until its result is known
	result   O
	err      error
	worker   WorkerID // the worker it is leased to, while leased
	attempt  int      // the last attempt handed out: the Task's Attempt
	failures int      // failed attempts: an expired lease, a lost worker, an error
	tag      int      // index in lines
	phase    phase
	slot     bool // it holds an input slot: it has not left its line yet
}

// tagLine is the queue of the items one tag names, by Seq, and whether it
// has been stuck (items, and no worker to take them) and since when.
type tagLine struct {
	tag     string
	seqs    seqs
	capable int // registered workers with the tag (unused for "")
	stuck   bool
	since   time.Time
}

// member is a registered worker.
type member struct {
	id      WorkerID
	addr    string
	tags    []string
	lines   []int // the lines it takes from: "" and its tags'
	slots   int
	free    int
	flight  int // items leased to it
	done    int
	failed  int
	suspect bool
}

// leaseEnd is the deadline of one attempt at one item; it no longer counts
// once the item is not leased under that attempt.
type leaseEnd struct {
	seq     uint64
	attempt int
	due     time.Time
}

// pending is the timer pending for one timer tag, if any.
type pending struct {
	on  bool
	due time.Time
}

// NewState returns the State of a master that cfg describes, or an
// [ErrConfig] naming the first setting of cfg out of range. It holds no
// demand and knows no worker: the runtime's first agent.Pull gives it
// demand, and workers join with agent.Event messages.
func NewState[I, O any](cfg Config[I]) (State[I, O], error) {
	if err := cfg.validate(); err != nil {
		return State[I, O]{}, err
	}
	cfg = cfg.withDefaults()
	return State[I, O]{b: &book[I, O]{
		window: cfg.Window, maxBatch: cfg.MaxBatch, maxAttempts: cfg.MaxAttempts,
		unordered: cfg.Unordered, lease: cfg.Lease, tagWait: cfg.TagWait, tagOf: cfg.Tag,
		lines:  []tagLine{{}},
		lineOf: map[string]int{"": 0},
	}}, nil
}

// Clone returns a copy of s that shares no bookkeeping with it: evolving
// one leaves the other as it was. Items and results are copied as values.
func (s State[I, O]) Clone() State[I, O] {
	b := *s.b
	b.dead = slices.Clone(s.b.dead)
	b.items = s.b.items.clone()
	b.held = s.b.held.clone()
	b.leases = s.b.leases.clone()
	b.lines = slices.Clone(s.b.lines)
	for i := range b.lines {
		b.lines[i].seqs = seqs{b.lines[i].seqs.clone()}
	}
	b.lineOf = make(map[string]int, len(s.b.lineOf))
	for k, v := range s.b.lineOf {
		b.lineOf[k] = v
	}
	b.workers = slices.Clone(s.b.workers)
	for i := range b.workers {
		b.workers[i].tags = slices.Clone(b.workers[i].tags)
		b.workers[i].lines = slices.Clone(b.workers[i].lines)
	}
	return State[I, O]{b: &b}
}

// Status returns the snapshot of s that a Query is answered with.
func (s State[I, O]) Status() Status {
	b := s.b
	st := Status{
		Load: agent.Load{
			Queued:   b.queued,
			InFlight: b.leased,
			Done:     b.done,
			Failed:   b.failed,
			Demand:   b.demand,
		},
		Held:       b.nHeld,
		Requeued:   b.requeued,
		Retried:    b.retried,
		Duplicates: b.duplicates,
		Accepted:   int(b.accepted),
		Emitted:    b.emitted,
		Closed:     b.closed,
	}
	for i := range b.lines {
		l := &b.lines[i]
		n := l.seqs.len()
		if n == 0 {
			continue
		}
		if st.Tags == nil {
			st.Tags = map[string]int{}
		}
		st.Tags[l.tag] = n
		if b.capable(i) == 0 {
			st.Waiting += n
		}
	}
	if len(b.workers) > 0 {
		st.Workers = make([]WorkerStatus, len(b.workers))
	}
	for i, w := range b.workers {
		st.Workers[i] = WorkerStatus{
			ID: w.id, Addr: w.addr, Tags: slices.Clone(w.tags), Slots: w.slots,
			Free: w.free, InFlight: w.flight, Done: w.done, Failed: w.failed, Suspect: w.suspect,
		}
	}
	return st
}

// entry returns the item seq, or nil if it was never accepted or is gone.
func (b *book[I, O]) entry(seq uint64) *entry[I, O] {
	if seq < b.base || seq >= b.accepted {
		return nil
	}
	return b.items.at(int(seq - b.base))
}

// line returns the index of tag's line, making it if need be.
func (b *book[I, O]) line(tag string) int {
	if i, ok := b.lineOf[tag]; ok {
		return i
	}
	b.lines = append(b.lines, tagLine{tag: tag})
	b.lineOf[tag] = len(b.lines) - 1
	return len(b.lines) - 1
}

// capable counts the registered workers that may take the items of line i.
func (b *book[I, O]) capable(i int) int {
	if i == 0 {
		return len(b.workers)
	}
	return b.lines[i].capable
}
