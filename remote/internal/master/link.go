// Package master is the master of a remote stage on its node: the actor
// its workers talk to (the link), which turns what they send into events
// for the master's book (package book) and performs the book's effects:
// Dispatch, Expel, Prefetch, Want and Hop. It decides nothing the book
// decides: it checks who a message is from, decodes and encodes, and
// keeps the PIDs of the registered workers.
package master

import (
	"fmt"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/trace"
	"github.com/evolvekit/evolve/remote/internal/book"
	"github.com/evolvekit/evolve/remote/internal/node"
	"github.com/evolvekit/evolve/remote/internal/wire"
	"github.com/rs/zerolog"
)

// Config is what a master's link needs of its stage's settings.
type Config struct {
	Name string // the stage's, which workers give to find it
	// Append and Decode are those of the stage's codec.Codec: items cross
	// to the workers and values back as their bytes.
	Append    func(dst []byte, v any) ([]byte, error)
	Decode    func(data []byte, v any) error
	MaxSlots  int           // the most slots a worker may register with
	Prefetch  int           // the prefetch each worker is granted, until a book.Prefetch says otherwise
	Heartbeat time.Duration // the interval workers learn as they register
	Lease     time.Duration // how long a task may run, which workers learn too
	// WorkError makes the error of a task whose work failed on the worker
	// at addr with text.
	WorkError func(addr, text string) error
	// OnWant, when not nil, is told each book.Want.
	OnWant func(tag string, workers int)
	// MaxMoves is the most moves an item may make, which workers learn
	// with their tasks.
	MaxMoves int
	// Timed says the book uses what each task's work took, as the workers
	// measure it (it charges fair lines so): without it, workers learn as
	// they register that they need not measure.
	Timed bool
	// OnMove, when not nil, is the stage's Config.OnMove, a
	// func(next I, tag string, hops int) error told each move the book took.
	OnMove any
	// Spans, when not nil, holds the spans of the stage's items, whose
	// contexts go to the workers with their tasks (see trace.go).
	Spans *trace.Line
}

// link is one running master's presence on its node: the actor its workers
// talk to, which turns their messages into events for the master's book,
// and the port that performs the book's effects.
type link[I, O any] struct {
	node *node.Node
	cfg  Config
	inc  uint64 // this run's incarnation, which every worker's message names
	post func(agent.Msg) bool
	log  zerolog.Logger
	pid  *actor.PID
	// spare keeps the slices of outcomes the book is done with, for the
	// next messages' (see Spare).
	spare *Spare[O]

	mu       sync.Mutex
	workers  map[book.WorkerID]*actor.PID // the registered workers
	ids      map[string]book.WorkerID     // the same, by their PID's address and ID
	limits   map[book.WorkerID]int        // the most bytes of a message to each
	next     book.WorkerID
	prefetch int // granted to the workers that register
	closed   bool
}

// Open puts the master of the stage cfg describes on n, with a new
// incarnation: what workers send it goes to post, as agent.Event messages
// of package book's types, and what it refuses is counted there and logged
// to log. It returns the port that performs the book's effects.
func Open[I, O any](n *node.Node, cfg Config, post func(agent.Msg) bool, log zerolog.Logger) (core.Port, error) {
	l := &link[I, O]{node: n, cfg: cfg, inc: incarnation(), post: post, log: log, prefetch: cfg.Prefetch,
		workers: make(map[book.WorkerID]*actor.PID), ids: make(map[string]book.WorkerID), limits: make(map[book.WorkerID]int), spare: NewSpare[O]()}
	if err := n.Claim(cfg.Name, cfg.Heartbeat, l.refused); err != nil {
		return core.Port{}, err
	}
	pid, err := n.System().Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return l }), cfg.Name)
	if err != nil {
		n.Free(cfg.Name)
		return core.Port{}, fmt.Errorf("remote: stage %q on the node at %s: %w", cfg.Name, n.Addr(), err)
	}
	l.pid = pid
	return core.Port{Send: l.send, Close: l.close, Spent: l.spare.Put}, nil
}

// refused counts what the node and the link refused for the stage over
// the last interval, and logs it.
func (l *link[I, O]) refused(n int, last string) {
	l.log.Warn().Str("stage", l.cfg.Name).Str("node", l.node.Addr()).Int("refused", n).Str("last", last).
		Msg("remote: refused messages from peers")
	l.post(agent.Event[book.Refused]{Value: book.Refused{N: n}})
}

// key names a PID in ids.
func key(pid *actor.PID) string { return pid.Address + "/" + pid.Id }

// Receive implements actor.Actor: the workers' messages.
func (l *link[I, O]) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *wire.Register:
		l.register(ctx, m)
	case *wire.Ask:
		if id, ok := l.from(ctx, m.Worker, m.Incarnation); ok && m.N > 0 {
			l.post(agent.Event[book.Asked]{Value: book.Asked{Worker: id, N: int(m.N)}})
		}
	case *wire.Outcomes:
		if id, ok := l.from(ctx, m.Worker, m.Incarnation); ok {
			l.outcomes(id, m)
		}
	case *wire.Leave:
		if id, ok := l.from(ctx, m.Worker, m.Incarnation); ok {
			l.leave(ctx, id, m)
		}
		ctx.Respond(&wire.Finished{})
	case *wire.Beat:
		l.beat(ctx, m)
	case *actor.Terminated:
		l.lost(m.Who)
	}
}

// from returns the registered worker that sent the message ctx holds,
// which names worker and incarnation inc: a message counts only from the
// worker it names, registered with this run of the stage. The sender is one
// the node's guard found on the connection the message came over, not
// merely what the peer wrote.
func (l *link[I, O]) from(ctx actor.Context, worker, inc uint64) (book.WorkerID, bool) {
	sender := ctx.Sender()
	if sender == nil {
		l.node.Refuse(l.cfg.Name, "a worker's message with no sender")
		return 0, false
	}
	l.mu.Lock()
	id, ok := l.ids[key(sender)]
	l.mu.Unlock()
	if !ok || uint64(id) != worker || inc != l.inc {
		l.node.Refuse(l.cfg.Name, fmt.Sprintf("a message from %s naming worker %d of incarnation %x", key(sender), worker, inc))
		return 0, false
	}
	return id, true
}
