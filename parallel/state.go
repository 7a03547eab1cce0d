package parallel

import (
	"math/rand/v2"
	"time"

	"github.com/evolvekit/evolve/internal/fair"
	"github.com/evolvekit/evolve/internal/fifo"
)

// State is everything a parallel agent knows between two messages: its
// settings, the items waiting to start and when they came, the batches in
// flight, the results waiting to be emitted, the demand it holds, how long
// its items have taken and its counts.
//
// A State is a value. [Evolve] never changes what the State it is given
// holds: it keeps its lists in persistent queues and maps (package
// internal/fifo), so an earlier State can be kept, read or evolved again.
// A new State costs O(1) time per item started, finished or emitted, and a
// small allocation or two, whatever the limit and the results held (an
// item that waits for a retry, or a pass, costs O(log n) more for the n
// that wait: they are kept in a persistent balanced tree); reading
// or evolving an earlier State costs, once, time in proportion to the
// changes made since. With a [Config.Key], the items waiting are kept in
// a line per key that is not persistent: a State that is not owned (see
// below) copies it on each step, O(n) for the n items waiting. Two States
// evolved from one share memory, so they
// must not be used on two goroutines at once. The runtime, which keeps
// nothing but the newest State, runs an owned one ([State.Owned]): it
// changes in place, and a change costs no allocation. The zero State is
// not usable; build one with [NewState].
type State[In, Out any] struct {
	limit     int
	queue     int // the input bound, reported in Status
	unordered bool
	maxBatch  int
	cancels   bool // Config.CancelOnError

	waiting  fifo.Queue[In]      // accepted, not started; the oldest has Seq started
	arrivals fifo.Queue[arrival] // when the waiting items came, oldest first
	// keyOf and line, with a Key, take the place of waiting and arrivals:
	// the items wait in a line per key, and start in the order it hands
	// them out (see keys.go).
	keyOf func(In) string
	line  *fair.Queue[string, waiter[In]]
	owned bool // set by Owned: the line is changed in place, not copied first
	// epoch is the instant the first item came: the line keeps when its
	// items came as times since.
	epoch time.Time
	// names says Post bounds each key's items (KeyQueue below Queue): the
	// slots given back are named by key (see freed). With a Key, waiting
	// holds the items that went past the lines (see acceptKeyed), and
	// arrivals when they came, ending at counts of passedIn; passedOut
	// counts those taken out; alone says they are all of key lone.
	names               bool
	alone               bool
	lone                string
	passedIn, passedOut uint64
	// scratch is where takeKeyed gathers the runs it takes, reused;
	// named, where the items taken are named by key for Post's bound
	// until freed sends them, reused.
	scratch []owed
	named   []fair.Run
	// waiters is where takeKeyed takes a run of waiting items in, reused.
	// runs is the block of memory where it keeps the runs it started for
	// their batches, many to a block (see keep).
	runs     []owed
	waiters  []waiter[In]
	accepted uint64                 // items taken in so far: the next item's Seq
	started  uint64                 // items started (or failed unstarted) so far
	running  fifo.Slots[flight[In]] // the batches in flight, by ID
	assigned int                    // the items of the batches in flight
	held     held[Out]              // finished, not emitted: by Seq in input order, else by place in the output
	emitted  uint64                 // results emitted so far
	demand   int                    // values downstream will still accept

	cost   time.Duration // the time an item has taken, on average of late
	costed bool          // whether a batch has finished, so cost is known

	retry    Retry                    // Config.Retry, with its defaults
	rng      rand.PCG                 // draws the backoffs
	retrying fifo.Ranked[retrial[In]] // failed items waiting to be tried again, by due instant
	armed    time.Time                // the instant the retry timer is armed for; zero for none
	// passes are those held to start retries with, reserved those asked
	// for and not yet brought (see package internal/pace).
	passes, reserved int
	retried          int // retries so far
	moved            int // moves so far (see moveOn)
	maxMoves         int // the most moves an item may make
	// paced is set once the agent before it in a chain keeps a pace: the
	// agent then takes items only into the room it opens, and open counts
	// the items it opened room for that have not come (see package
	// internal/pace).
	paced bool
	open  int

	done, failed int
	firstErr     error
	cancelled    error // the cause of the cancellation, once the first failure cancelled the rest
	closed       bool
	finished     bool
}

// retrial is an item whose work failed, waiting for its next attempt: its
// Seq, the item, the attempt it waits for (2 for the first retry) and the
// instant it may start.
type retrial[In any] struct {
	seq     uint64
	item    In
	attempt int
	due     time.Time
	owes    []owed   // an item of a key that has not started yet: its charge
	path    []string // the tags its work moved it to, in order (see moveOn)
}

// arrival is when the items up to (not including) Seq end were accepted.
type arrival struct {
	at  time.Time
	end uint64
}

// flight is one batch in flight: its Start ID, which is the Seq of its
// first item, how many items it holds, when it started, how long its first
// item had waited, and how many batches were in flight once it started.
type flight[In any] struct {
	id    uint64
	n     int
	at    time.Time
	wait  time.Duration
	among int
	// items are the batch's own, kept to try a failed one again; attempt
	// is the batch's attempt at them, 1 unless it retries one item.
	items   []In
	attempt int
	// path, for a batch that goes on with an item that moved, is the tags
	// its work asked for so far, in order.
	path []string
	// owes, with a Key, is what the keys of its items were charged as
	// they started: the fair line is told what they took once it ends.
	owes []owed
}

// Flight describes a batch in flight, as [State.Flight] reports it.
type Flight struct {
	// Start is the instant the batch started: the At of the message after
	// which its agent.Start was asked for.
	Start time.Time
	// Wait is how long its first item had waited in the input queue.
	Wait time.Duration
	// Items counts its items.
	Items int
	// Among counts the batches in flight just after it started, itself
	// included: the concurrency it started at.
	Among int
}

// NewState returns the initial State for cfg, or an [ErrConfig] naming the
// first setting of cfg that is out of range. It holds no demand: the
// runtime's first agent.Pull gives it some, and until then it starts
// nothing.
func NewState[In, Out any](cfg Config) (State[In, Out], error) {
	if err := cfg.validate(); err != nil {
		return State[In, Out]{}, err
	}
	cfg = cfg.withDefaults()
	keyOf, line, err := keyLine[In](cfg)
	if err != nil {
		return State[In, Out]{}, err
	}
	return State[In, Out]{
		limit: cfg.Limit, queue: cfg.Queue, unordered: cfg.Unordered,
		maxBatch: cfg.MaxBatch, cancels: cfg.CancelOnError,
		retry: cfg.Retry, maxMoves: cfg.MaxMoves, rng: *rand.NewPCG(cfg.Retry.Seed, cfg.Retry.Seed^pcgStream),
		keyOf: keyOf, line: line, names: line != nil && cfg.KeyQueue < cfg.Queue,
	}, nil
}

// Owned returns s as a State that [Evolve] updates in place where it
// would otherwise keep a version of what it changed: for a driver that
// keeps nothing but the newest State, as the runtime does, and saves the
// allocations the versions cost. s, and every State evolved from it but
// the newest, are no longer to be used. The States a test evolves keep
// their value semantics: they are not owned.
func (s State[In, Out]) Owned() State[In, Out] {
	s.running = s.running.Owned()
	s.held.runs = s.held.runs.Owned()
	s.owned = true
	return s
}

// Flight reports the batch in flight under the Start ID id, and whether
// there is one.
func (s State[In, Out]) Flight(id uint64) (Flight, bool) {
	f, ok := s.running.Get(id)
	if !ok {
		return Flight{}, false
	}
	return Flight{Start: f.at, Wait: f.wait, Items: f.n, Among: f.among}, true
}

// pcgStream picks the PCG stream of the retry generator from its seed.
const pcgStream = 0x9e3779b97f4a7c15

// drained reports whether nothing is left: nothing waits, runs, is held or
// waits to be tried again.
func (s *State[In, Out]) drained() bool {
	return s.queued() == 0 && s.running.Len() == 0 && s.held.Len() == 0 && s.retrying.Len() == 0
}

// batch returns how many items the next batch may hold, before the share
// of the items that may start: one until a batch has finished, then as
// many as have taken [BatchSpan] on average, within [1, maxBatch].
func (s *State[In, Out]) batch() int {
	if s.maxBatch <= 1 || !s.costed {
		return 1
	}
	if s.cost <= 0 {
		return s.maxBatch
	}
	return int(min(max(BatchSpan/s.cost, 1), time.Duration(s.maxBatch)))
}

// least returns how few items a batch is split down to when the items that
// may start are shared among the free places: as many as have taken
// [ShareSpan] on average, within [1, most].
func (s *State[In, Out]) least(most int) int {
	switch {
	case most <= 1 || !s.costed:
		return 1
	case s.cost <= 0: // too quick to measure
		return most
	}
	return int(min(max(ShareSpan/s.cost, 1), time.Duration(most)))
}

// measured folds the time a batch of n items took into cost.
func (s *State[In, Out]) measured(took time.Duration, n int) {
	each := max(took, 0) / time.Duration(n)
	if !s.costed {
		s.cost, s.costed = each, true
	} else {
		s.cost += (each - s.cost) / 4
	}
}

// take removes the k oldest waiting items, which start at instant at, and
// returns them with how long the first of them waited, and with a Key
// what their keys were charged (see takeKeyed).
// The oldest arrival is that of the oldest waiting item: arrivals whose
// items have all started are dropped as they start.
func (s *State[In, Out]) take(k int, at time.Time) ([]In, time.Duration, []owed) {
	if s.line != nil {
		if s.waiting.Len() == 0 {
			return s.takeKeyed(k, at)
		}
		// The items that went past the lines are older than any in them.
		items, wait, owes := s.takePassed(k, at)
		if len(items) < k && s.line.Len() > 0 {
			more, _, also := s.takeKeyed(k-len(items), at)
			items = append(items[:len(items):len(items)], more...)
			owes = append(owes, also...)
		}
		return items, wait, owes
	}
	wait := max(at.Sub(s.arrivals.At(0).at), 0)
	var items []In
	items, s.waiting = s.waiting.Take(k)
	s.started += uint64(k)
	for s.arrivals.Len() > 0 && s.arrivals.At(0).end <= s.started {
		_, s.arrivals = s.arrivals.Pop()
	}
	return items, wait, nil
}
