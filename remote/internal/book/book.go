package book

import (
	"maps"
	"slices"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/fair"
	"github.com/evolvekit/evolve/internal/fifo"
	"github.com/evolvekit/evolve/remote/internal/aside"
	"github.com/evolvekit/evolve/remote/internal/fairline"
	"github.com/evolvekit/evolve/remote/internal/move"
	"github.com/evolvekit/evolve/remote/internal/ordered"
	"github.com/evolvekit/evolve/remote/internal/pacing"
	"github.com/evolvekit/evolve/remote/internal/tagwait"
	"github.com/evolvekit/evolve/remote/internal/timer"
	"github.com/evolvekit/evolve/remote/internal/want"
)

// Book is everything the master of a remote stage knows between two
// messages: its settings, the items accepted and not yet emitted (queued by
// tag, leased to a worker, or holding a result), the registered workers,
// the leases and their deadlines, the demand it holds and its counts. I is
// the type of the items, O that of a task's value, R that of the results
// it emits (made by Config.Result).
//
// Evolve updates a book in place, so that an item costs no allocation of
// its own: the master's state is a *Book, and an earlier one is no
// snapshot. Clone makes one, and the runtime and agenttest.Run call it
// where a state must not be shared: each run of a stage starts from a
// Clone, and each Trace holds one.
type Book[I, O, R any] struct {
	dead []agent.DeadLetter // the items failed for good by the message in hand
	hops []Hop              // the moves taken by the message in hand

	window, maxBatch, maxAttempts int
	queue                         int // the input bound, which the room opened behind a pacer keeps
	prefetch                      int // the items a worker may hold beyond its slots
	unordered                     bool
	lease, tagWait                time.Duration
	heartbeat, silence            time.Duration // silence 0: no worker is given up for it
	tagOf                         func(I) string
	movesOf                       func(I) int    // nil: items come having made no moves
	keyOf                         func(I) string // nil: no fair lines (see fairline.go)
	freed                         []fair.Run     // with keyOf, the keys of the input slots given back since the last Demand
	weights                       map[string]int
	quantum                       time.Duration
	result                        func(seq uint64, v O, err error, path []move.Step) R
	maxMoves                      int // the moves an item may make (see move.go)

	// items holds the items from Seq base on, up to the last accepted:
	// every one not yet emitted, and in unordered mode those emitted after
	// an earlier one that is not. In input order base is the next Seq to
	// emit.
	items    fifo.Deque[entry[I, O]]
	base     uint64
	accepted uint64
	held     fifo.Deque[uint64] // unordered: the Seqs of the held results, by finish
	nHeld    int                // results held
	queued   int                // items in lines
	slotted  int                // those of them that hold an input slot
	leased   int                // items leased to a worker
	emitted  int
	demand   int
	back     int // input slots to give back after this message

	lines  []tagLine      // the queue of each tag; lines[0] is that of ""
	lineOf map[string]int // index in lines, by tag

	workers  []member         // registered, by ID
	stalled  int              // registered workers with every slot hung
	next     WorkerID         // where the next dispatch starts looking
	leases   timer.Deadlines  // of the leases given
	clock    timer.Clock      // the instants the leases started
	rares    aside.Store      // what the items that need more keep aside
	timers   [2]timer.Pending // by timer tag - 1
	hush     timer.Pending    // the silence timer
	drain    time.Duration    // the time the workers wanted work through a queue in; 0: no wants (see package want)
	wantTick timer.Pending    // the want timer
	expelled []WorkerID       // the workers given up for silence by the message in hand

	done, failed, requeued, retried, duplicates, refused int
	moves                                                int
	firstErr                                             error
	closed, finished                                     bool

	pacer pacing.Pacer // the count kept behind a pacer (see pace.go)

	picks []pick // plan's, reused: no bookkeeping
	heads []int  // plan's, reused
}

// phase is where an accepted item is.
type phase uint8

const (
	phaseQueued  phase = iota // in its tag's line, waiting for a worker
	phaseLeased               // handed to a worker, its result awaited
	phaseHeld                 // its result is known, not yet emitted
	phaseEmitted              // passed on
)

// entry is one accepted item: where it is, and what it holds there; what
// few items need, it keeps aside (see package aside).
type entry[I, O any] struct {
	value    I // until its result is known
	result   O
	worker   WorkerID      // the worker it is leased to, while leased, or was last
	prev     WorkerID      // the worker its attempt before the last was leased to
	attempt  int           // the last attempt handed out: the task's Attempt
	failures int           // failed attempts: an expired lease, a lost worker, an error
	tag      int           // index in lines
	prior    int           // the moves it made before it came (Config.Moves), which count toward the limit
	since    timer.Instant // when its lease started, on clock by its Seq, while leased and not waiting
	phase    phase
	slot     bool // it holds an input slot: it has not left its line yet
	waits    bool // leased, and waiting on its worker for a slot: its lease has not started
	rare     bool // it keeps something aside
}

// tagLine is the queue of the items one tag names, by Seq, and its wait
// for a worker that may take them.
type tagLine struct {
	tag     string
	seqs    ordered.Seqs
	capable int // registered workers with the tag (unused for "")
	stalled int // those of them with every slot hung (unused for "")
	wait    tagwait.Line
	gauge   want.Gauge     // what the line wants of workers (see package want)
	fair    *fairline.Line // with Config.Key, its new items before they are let into seqs (see fairline.go)
}

// member is a registered worker.
type member struct {
	id       WorkerID
	addr     string
	tags     []string
	lines    []int // the lines it takes from: "" and its tags'
	slots    int
	prefetch int // granted, as it joined
	room     int // the most items it may hold: its slots and the prefetch granted
	free     int
	flight   int // items leased to it
	waiting  int // those of them waiting for a slot, their lease not started
	done     int
	failed   int
	moved    int       // its items' moves it asked for, under their leases
	heard    time.Time // the last instant it was heard from
	// queue holds the items leased to it that wait for a slot, oldest
	// first, and refs that no longer count (see start).
	queue fifo.Deque[attemptRef]
	// hung holds the attempts it still holds whose lease expired: each
	// keeps a slot of its busy until its result comes.
	hung []attemptRef
}

// Config holds the settings of a book, every one given: package remote
// checks them and fills in its defaults.
type Config[I, O, R any] struct {
	Window      int           // the most items leased or held at once
	Queue       int           // the input bound: the items accepted and not yet handed out once
	MaxBatch    int           // the most tasks one Dispatch carries
	MaxAttempts int           // the attempts an item has before it fails for good
	Prefetch    int           // the tasks a worker may hold beyond its slots
	Unordered   bool          // emit results as they come, not in input order
	Lease       time.Duration // how long a task may run before it is taken back
	TagWait     time.Duration // how long an item waits for a worker that may take it
	Heartbeat   time.Duration // how often workers are heard from, at least
	Silence     time.Duration // how long a worker may be silent; 0 for ever
	Drain       time.Duration // the time the workers wanted work through a queue in; 0: no wants
	MaxMoves    int           // the moves an item may make; the next fails it (see move.go)
	Moves       func(I) int   // the moves an item made before it came, counted in MaxMoves; nil for none
	// Tag names the resource an item needs, "" for none; nil for no tags.
	Tag func(I) string
	// Key names the key an item's work is shared by (see fairline.go);
	// nil for none. It needs Unordered. Weights weighs the keys, 1 for a
	// key not in it, each at least 1; Quantum, positive, is the fair
	// queues' quantum.
	Key     func(I) string
	Weights map[string]int
	Quantum time.Duration
	// Result makes the result emitted for item seq: its value, or its
	// error, and its path, nil if it never moved.
	Result func(seq uint64, v O, err error, path []move.Step) R
}

// New returns the book of a master that cfg describes. It holds no demand
// and knows no worker: the runtime's first agent.Pull gives it demand, and
// workers join with agent.Event messages.
func New[I, O, R any](cfg Config[I, O, R]) *Book[I, O, R] {
	b := &Book[I, O, R]{
		lineOf: map[string]int{},
		window: cfg.Window, queue: cfg.Queue, maxBatch: cfg.MaxBatch, maxAttempts: cfg.MaxAttempts, prefetch: cfg.Prefetch,
		unordered: cfg.Unordered, lease: cfg.Lease, tagWait: cfg.TagWait, tagOf: cfg.Tag, result: cfg.Result,
		heartbeat: cfg.Heartbeat, silence: cfg.Silence, drain: cfg.Drain, maxMoves: cfg.MaxMoves, movesOf: cfg.Moves,
		keyOf: cfg.Key, weights: maps.Clone(cfg.Weights), quantum: cfg.Quantum,
	}
	b.line("")
	return b
}

// Clone returns a copy of b that shares no bookkeeping with it: evolving
// one leaves the other as it was. Items and results are copied as values.
func (b *Book[I, O, R]) Clone() *Book[I, O, R] {
	c := *b
	c.dead = slices.Clone(b.dead)
	c.hops = slices.Clone(b.hops)
	c.freed = slices.Clone(b.freed)
	c.expelled = slices.Clone(b.expelled)
	c.picks, c.heads = nil, nil
	c.items = b.items.Clone()
	c.held = b.held.Clone()
	c.leases, c.clock, c.rares = b.leases.Clone(), b.clock.Clone(), b.rares.Clone()
	c.lines = slices.Clone(b.lines)
	for i := range c.lines {
		c.lines[i].seqs = c.lines[i].seqs.Clone()
		if c.lines[i].fair != nil {
			c.lines[i].fair = c.lines[i].fair.Clone()
		}
	}
	c.lineOf = maps.Clone(b.lineOf)
	c.workers = slices.Clone(b.workers)
	for i := range c.workers {
		c.workers[i].tags = slices.Clone(c.workers[i].tags)
		c.workers[i].lines = slices.Clone(c.workers[i].lines)
		c.workers[i].queue = c.workers[i].queue.Clone()
		c.workers[i].hung = slices.Clone(c.workers[i].hung)
	}
	return &c
}

// entry returns the item seq, or nil if it was never accepted or is gone.
func (b *Book[I, O, R]) entry(seq uint64) *entry[I, O] {
	if seq < b.base || seq >= b.accepted {
		return nil
	}
	return b.items.At(int(seq - b.base))
}

// line returns the index of tag's line, making it if need be.
func (b *Book[I, O, R]) line(tag string) int {
	if i, ok := b.lineOf[tag]; ok {
		return i
	}
	b.lines = append(b.lines, tagLine{tag: tag, fair: b.fairLine()})
	b.lineOf[tag] = len(b.lines) - 1
	return len(b.lines) - 1
}

// capable counts the registered workers that may take the items of line i,
// less those with every slot hung.
func (b *Book[I, O, R]) capable(i int) int {
	if i == 0 {
		return len(b.workers) - b.stalled
	}
	return b.lines[i].capable - b.lines[i].stalled
}

// registered counts the registered workers that may take the items of line
// i, their slots hung or not.
func (b *Book[I, O, R]) registered(i int) int {
	if i == 0 {
		return len(b.workers)
	}
	return b.lines[i].capable
}

// inLine counts the items queued in line i, in its fair queue too.
func (b *Book[I, O, R]) inLine(i int) int { return b.lines[i].seqs.Len() + b.lines[i].fair.Len() }
