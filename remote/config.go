package remote

import (
	"maps"
	"slices"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/codec"
	"github.com/evolvekit/evolve/internal/fair"
	"github.com/evolvekit/evolve/remote/internal/move"
)

// Config sets up the master side of a remote stage: how many items it
// accepts, how it hands them out and retries them, and how it routes them.
// The zero value of every field but Name has a sensible default.
type Config[I any] struct {
	// Node is where the stage listens for its workers. [New] and [Stage]
	// require it.
	Node *Node
	// Name names the stage in logs and errors, and is the name workers give
	// [Work] to find it on the master's node: two stages on one node need
	// different names. Default "remote".
	Name string
	// Queue bounds the items accepted and not yet handed to a worker for
	// the first time; items taken back from a worker queue again beside
	// them. Default the larger of agent.DefaultQueue and MaxBatch, so that
	// one message to a worker may carry MaxBatch items.
	Queue int
	// Window bounds the items handed to workers and not yet emitted: those
	// leased to a worker, and the results held for an earlier item (in
	// input order) or for downstream demand. In input order, the item the
	// output waits for is handed out even when the window is full, so the
	// bound may be passed by one: otherwise an item taken back from a dead
	// worker could wait for results that wait for it. Default DefaultWindow:
	// room for a few workers of DefaultMaxSlots slots with their prefetch,
	// since a window smaller than the items workers may hold keeps them
	// waiting, and through a round trip r the stage does at most Window / r
	// items a second.
	Window int
	// Unordered emits each result as it comes back; by default results are
	// emitted in input order.
	Unordered bool
	// MaxBatch is the most items one message to a worker carries. Default
	// DefaultMaxBatch.
	MaxBatch int
	// MaxAttempts is how many times an item is tried before it fails with
	// its last error: an attempt fails when the work returns an error, its
	// worker dies, or its lease expires. A worker that leaves gracefully
	// hands its items back, and that is no attempt. Default
	// DefaultMaxAttempts.
	MaxAttempts int
	// Lease is how long a worker may hold an item before the master takes
	// it back and hands it to another: it bounds the time one item's work
	// may take. Default DefaultLease.
	Lease time.Duration
	// TagWait is how long items wait while no registered worker may take
	// them (none has their tag, none is registered at all, or every one
	// that may has all its slots hung) before they fail with ErrNoWorker;
	// those that come after fail at once, until a worker may take them
	// (see the package doc, under Hung work). Default DefaultTagWait.
	TagWait time.Duration
	// Tag names the resource an item needs: it goes only to a worker that
	// registered with that tag. Nil, or "", means any worker will do.
	Tag func(I) string
	// Key names the owner of an item (a client, a tenant), so that the keys
	// with items waiting share the workers by Weights, each charged the
	// time its work takes, each key's items starting in the order they
	// came (see the package doc, under Fair shares). It needs Unordered:
	// in input order one key's slow item would hold back every key's
	// results, and once they fill the window every key's work. Nil, the
	// default, keys nothing: items start first come, first served.
	Key func(I) string
	// Weights weighs the keys Key names: a key's share of the workers
	// against another's is its weight to theirs. A key not in it weighs
	// 1, and a weight must be at least 1. Nil weighs every key alike. The
	// stage keeps a copy: changing the map later changes nothing.
	Weights map[string]int
	// Quantum is the work a key of weight 1 is credited each turn among
	// the keys waiting: it bounds how far a key's work started may stray
	// from its share, with the longest item. Default a millisecond; it
	// must not be negative.
	Quantum time.Duration
	// KeyQueue bounds, with a Key, the items of one key that Post lets
	// wait in Queue, so that a flood from one key leaves the others room
	// (for a stage first in a chain, or on its own: one further down takes
	// what the stage before it passes on). Default a quarter of Queue, at
	// least one; it must not be negative.
	KeyQueue int
	// MaxMoves is the most moves an item may make (see the package doc,
	// under Moves): one that asks for more fails for good with ErrMoves,
	// naming its path. Default DefaultMaxMoves.
	MaxMoves int
	// MaxSlots is the most slots a worker may register with: a worker
	// that claims more is refused, so that no peer can claim the whole
	// window. Default DefaultMaxSlots.
	MaxSlots int
	// Heartbeat is how often master and workers hear from each other when
	// nothing else passes between them; the package doc, under Failures,
	// says what silence does. Default DefaultHeartbeat; at least a
	// millisecond.
	Heartbeat time.Duration
	// MaxPrefetch is the most tasks a worker may hold beyond its slots,
	// waiting for one (see the package doc, under Prefetch): the master
	// grants it to each worker as it registers, and a worker asks for what
	// it wants of it (WorkerConfig.Prefetch). Default DefaultMaxPrefetch;
	// NoPrefetch grants none.
	MaxPrefetch int
	// Codec turns items into bytes for the wire and results back; workers
	// must use the same. Default codec.JSON.
	Codec codec.Codec
	// DeadLetters, when not nil, takes each item that failed for good, as
	// parallel.Config's DeadLetters does; a stage without one hands its
	// dead letters to its chain's.
	DeadLetters func(agent.DeadLetter)
	// Drain is the time within which the workers the stage wants for a
	// tag should work through the items of that tag queued, beyond those
	// its arrival rate keeps busy (see the package doc, under Scaling on
	// the backlog). Default DefaultDrain.
	Drain time.Duration
	// OnWant, if set, is told on the master's goroutine (return quickly)
	// each new number of workers the stage wants for tag ("" for any).
	OnWant func(tag string, workers int)
	// OnMove, if set, is told on the master's goroutine each move it takes,
	// before its next message: durable's Queue.Moved fits (docs/moves.md).
	OnMove func(next I, tag string, hops int) error
	// Moves, if set, gives the moves an item made before the stage took it
	// (a durable queue's item resumed after a restart has its Item.Moves):
	// MaxMoves counts them, OnMove's hops do not.
	Moves func(I) int
}

// The defaults of Config.
const (
	DefaultWindow      = 4096
	DefaultMaxBatch    = 64
	DefaultMaxAttempts = 3
	DefaultLease       = time.Minute
	DefaultTagWait     = time.Minute
	DefaultMaxSlots    = 1024
	DefaultHeartbeat   = time.Second
	DefaultMaxPrefetch = 256
	DefaultDrain       = 30 * time.Second
	DefaultMaxMoves    = move.DefaultLimit
)

// NoPrefetch, as Config.MaxPrefetch, grants workers no prefetch, and as
// WorkerConfig.Prefetch asks for none: a worker then holds no more items
// than it has slots.
const NoPrefetch = -1

// validate reports the first setting out of range.
func (c Config[I]) validate() error {
	switch {
	case c.Queue < 0:
		return invalid("queue must not be negative, got %d", c.Queue)
	case c.Window < 0:
		return invalid("window must not be negative, got %d", c.Window)
	case c.MaxBatch < 0:
		return invalid("max batch must not be negative, got %d", c.MaxBatch)
	case c.MaxAttempts < 0:
		return invalid("max attempts must not be negative, got %d", c.MaxAttempts)
	case c.Lease < 0:
		return invalid("lease must not be negative, got %v", c.Lease)
	case c.TagWait < 0:
		return invalid("tag wait must not be negative, got %v", c.TagWait)
	case c.MaxSlots < 0:
		return invalid("max slots must not be negative, got %d", c.MaxSlots)
	case c.Heartbeat < 0 || c.Heartbeat > 0 && c.Heartbeat < time.Millisecond:
		return invalid("heartbeat must be at least 1ms, got %v", c.Heartbeat)
	case c.Drain < 0:
		return invalid("drain must not be negative, got %v", c.Drain)
	case c.MaxPrefetch < NoPrefetch:
		return invalid("max prefetch must be NoPrefetch (-1), 0 for the default or positive, got %d", c.MaxPrefetch)
	case c.Quantum < 0:
		return invalid("quantum must not be negative, got %v", c.Quantum)
	case c.MaxMoves < 0:
		return invalid("max moves must not be negative, got %d", c.MaxMoves)
	case c.KeyQueue < 0:
		return invalid("key queue must not be negative, got %d", c.KeyQueue)
	case c.Key != nil && !c.Unordered:
		return invalid("a key needs Unordered: in input order one key's slow item would hold back every key's results")
	case c.Key == nil && len(c.Weights) > 0:
		return invalid("weights need a key")
	}
	return c.validateWeights()
}

// validateWeights reports the first key, in order, weighed below 1.
func (c Config[I]) validateWeights() error {
	for _, k := range slices.Sorted(maps.Keys(c.Weights)) {
		if w := c.Weights[k]; w < 1 {
			return invalid("the weight of key %q must be at least 1, got %d", k, w)
		}
	}
	return nil
}

// withDefaults fills in the zero settings.
func (c Config[I]) withDefaults() Config[I] {
	if c.Name == "" {
		c.Name = "remote"
	}
	if c.Window == 0 {
		c.Window = DefaultWindow
	}
	if c.MaxBatch == 0 {
		c.MaxBatch = DefaultMaxBatch
	}
	if c.Queue == 0 {
		c.Queue = max(agent.DefaultQueue, c.MaxBatch)
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.Lease == 0 {
		c.Lease = DefaultLease
	}
	if c.TagWait == 0 {
		c.TagWait = DefaultTagWait
	}
	if c.MaxSlots == 0 {
		c.MaxSlots = DefaultMaxSlots
	}
	if c.Heartbeat == 0 {
		c.Heartbeat = DefaultHeartbeat
	}
	if c.Codec == nil {
		c.Codec = codec.JSON
	}
	if c.Drain == 0 {
		c.Drain = DefaultDrain
	}
	if c.Quantum == 0 {
		c.Quantum = fair.DefaultQuantum
	}
	if c.MaxMoves == 0 {
		c.MaxMoves = DefaultMaxMoves
	}
	if c.KeyQueue == 0 {
		c.KeyQueue = max(c.Queue/4, 1)
	}
	return c
}

// grant returns the prefetch a master with c grants each worker.
func (c Config[I]) grant() int {
	switch c.MaxPrefetch {
	case NoPrefetch:
		return 0
	case 0:
		return DefaultMaxPrefetch
	}
	return c.MaxPrefetch
}
