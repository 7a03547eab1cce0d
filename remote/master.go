package remote

import (
	"fmt"
	"github.com/evolvekit/evolve/codec"
	"github.com/rs/zerolog"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/remote/internal/wire"
)

// New starts the master of a remote stage on rt, on its own, listening for
// its workers on cfg.Node under cfg.Name. Post items to the handle it
// returns; workers that call [Work] with the node's address and the
// stage's name pull them, and each item's [Result] goes to sink, in input
// order unless cfg.Unordered. Items wait in the queue while no worker is
// registered. After Close, Wait returns once every accepted item has been
// emitted, with the first failure, as a parallel agent's does; the workers
// are then told the stage has finished.
func New[I, O any](rt *agent.Runtime, cfg Config[I], sink func(Result[O])) (agent.Handle[I, Status], error) {
	if rt == nil {
		return nil, invalid("runtime must not be nil")
	}
	spec, err := build[I, O](cfg)
	if err != nil {
		return nil, err
	}
	h, err := core.Spawn[I, Status](rt, spec, sink)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// Stage returns a remote stage for a compose chain, in the place of a
// parallel stage: it passes on the values of the items that succeeded, and
// the chain's Wait reports the first failure, as with parallel.Stage. Each
// time the chain starts, the stage listens on cfg.Node under cfg.Name.
func Stage[I, O any](cfg Config[I]) (agent.Stage[I, O], error) {
	spec, err := build[I, O](cfg)
	if err != nil {
		return agent.Stage[I, O]{}, err
	}
	return core.Wrap(core.MapOut(core.NewStage[I, Status](spec), value[O])), nil
}

// value passes on the value of a result that succeeded.
func value[O any](r Result[O]) (O, bool) { return r.Value, r.Err == nil }

// spec describes the master's agent.
type spec[I, O any] = core.Spec[*book[I, O], struct{}, struct{}, Result[O]]

// build checks cfg and describes the master's agent.
func build[I, O any](cfg Config[I]) (spec[I, O], error) {
	if cfg.Node == nil {
		return spec[I, O]{}, invalid("node must not be nil")
	}
	b, err := newBook[I, O](cfg)
	if err != nil {
		return spec[I, O]{}, err
	}
	cfg = cfg.withDefaults()
	node, name, cdc, most, grant, heartbeat := cfg.Node, cfg.Name, cfg.Codec, cfg.MaxSlots, cfg.grant(), cfg.Heartbeat
	return spec[I, O]{
		Name:        name,
		State:       b,
		Evolve:      evolve[I, O],
		Queue:       cfg.Queue,
		DeadLetters: cfg.DeadLetters,
		Measure:     measure,
		Takes:       []agent.Msg{agent.Event[joined]{}, agent.Event[asked]{}, agent.Event[returned[O]]{}, agent.Event[left]{}, agent.Event[lost]{}, agent.Event[refused]{}, agent.Event[beat]{}},
		Open: func(post func(agent.Msg) bool, _ zerolog.Logger) (core.Port, error) {
			return open[I, O](node, name, cdc, most, grant, heartbeat, post)
		},
	}, nil
}

// WorkError is the error of an attempt whose work failed on a worker: the
// text of the error the work returned there, and the worker's address.
type WorkError struct {
	Worker string
	Text   string
}

// Error returns the text of the worker's error.
func (e *WorkError) Error() string { return e.Text }

// link is one running master's presence on its node: the actor its workers
// talk to, which turns their messages into events for the master's agent,
// and the port that performs the master's dispatch effects.
type link[I, O any] struct {
	node      *Node
	name      string
	codec     codec.Codec
	most      int // the slots a worker may claim
	grant     int // the prefetch each worker is granted
	heartbeat time.Duration
	inc       uint64 // this run's incarnation, which every worker's message names
	post      func(agent.Msg) bool
	pid       *actor.PID

	mu      sync.Mutex
	workers map[workerID]*actor.PID // the registered workers
	ids     map[string]workerID     // the same, by their PID's address and ID
	next    workerID
	closed  bool
}

// open puts a master named name on node, with a new incarnation.
func open[I, O any](node *Node, name string, cdc codec.Codec, most, grant int, heartbeat time.Duration, post func(agent.Msg) bool) (core.Port, error) {
	if err := node.claim(name, heartbeat, func(n int) { post(agent.Event[refused]{Value: refused{N: n}}) }); err != nil {
		return core.Port{}, err
	}
	l := &link[I, O]{node: node, name: name, codec: cdc, most: most, grant: grant, heartbeat: heartbeat, inc: incarnation(), post: post,
		workers: make(map[workerID]*actor.PID), ids: make(map[string]workerID)}
	pid, err := node.sys.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return l }), name)
	if err != nil {
		node.free(name)
		return core.Port{}, fmt.Errorf("remote: stage %q on the node at %s: %w", name, node.addr, err)
	}
	l.pid = pid
	return core.Port{Send: l.send, Close: l.close}, nil
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
			l.post(agent.Event[asked]{Value: asked{Worker: id, N: int(m.N)}})
		}
	case *wire.Results:
		if id, ok := l.from(ctx, m.Worker, m.Incarnation); ok {
			l.returned(id, m)
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
func (l *link[I, O]) from(ctx actor.Context, worker, inc uint64) (workerID, bool) {
	sender := ctx.Sender()
	if sender == nil {
		l.node.refuse(l.name, "a worker's message with no sender")
		return 0, false
	}
	l.mu.Lock()
	id, ok := l.ids[key(sender)]
	l.mu.Unlock()
	if !ok || uint64(id) != worker || inc != l.inc {
		l.node.refuse(l.name, fmt.Sprintf("a message from %s naming worker %d of incarnation %x", key(sender), worker, inc))
		return 0, false
	}
	return id, true
}

// register takes a worker in, watches it and welcomes it. A worker
// registered already rejoins: it has lost track of what it held (its
// connection broke, or it heard nothing for too long), so it leaves under
// its old ID, what it held queued again with no attempt counted, and joins
// under a new one, which tells its new messages from those of before.
func (l *link[I, O]) register(ctx actor.Context, m *wire.Register) {
	sender := ctx.Sender()
	if sender == nil {
		l.node.refuse(l.name, "a Register with no sender")
		return
	}
	refuse := func(why string) { ctx.Respond(&wire.Welcome{Refused: why, Incarnation: l.inc, Nonce: m.Nonce}) }
	if m.Slots < 1 || int64(m.Slots) > int64(l.most) {
		l.node.refuse(l.name, fmt.Sprintf("a Register from %s for %d slots", key(sender), m.Slots))
		refuse(fmt.Sprintf("slots must be from 1 to %d, got %d", l.most, m.Slots))
		return
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		refuse(stageFinished)
		return
	}
	old, rejoins := l.ids[key(sender)]
	delete(l.workers, old)
	l.next++
	id := l.next
	l.workers[id] = sender
	l.ids[key(sender)] = id
	l.mu.Unlock()
	if rejoins {
		l.post(agent.Event[left]{Value: left{Worker: old}})
	}
	ctx.Watch(sender)
	if !l.post(agent.Event[joined]{Value: joined{Worker: id, Addr: sender.Address, Slots: int(m.Slots), Tags: m.Tags}}) {
		refuse(stageFinished)
		return
	}
	ctx.Respond(&wire.Welcome{Worker: uint64(id), Prefetch: uint32(l.grant), Incarnation: l.inc, Nonce: m.Nonce, Heartbeat: int64(l.heartbeat)})
}

// stageFinished is why a Register to a stage that has finished is refused.
const stageFinished = "the stage has finished"

// returned decodes a worker's results and hands them to the master, with
// the slots the worker has free again.
func (l *link[I, O]) returned(id workerID, m *wire.Results) {
	out, ok := decodeResults[O](m, l.codec, l.addr(id))
	if !ok {
		l.node.refuse(l.name, fmt.Sprintf("malformed results from worker %d", id))
		return
	}
	if len(out) > 0 || m.Ask > 0 {
		l.post(agent.Event[returned[O]]{Value: returned[O]{Worker: id, Results: out, Asked: int(m.Ask)}})
	}
}

// decodeResults decodes the outcomes m brings from the worker at addr, or
// reports false if m is malformed.
func decodeResults[O any](m *wire.Results, cdc codec.Codec, addr string) ([]outcome[O], bool) {
	n := len(m.Items)
	if len(m.Attempts) != n || len(m.Sizes) != n || len(m.Failed) != len(m.Errors) {
		return nil, false
	}
	out := make([]outcome[O], n)
	var failed map[uint32]string
	if len(m.Failed) > 0 {
		failed = make(map[uint32]string, len(m.Failed))
		for k, i := range m.Failed {
			failed[i] = m.Errors[k]
		}
	}
	if !wire.Fit(m.Sizes, m.Values) {
		return nil, false
	}
	off := 0
	for i, item := range m.Items {
		end := off + int(m.Sizes[i])
		data := m.Values[off:end:end]
		off = end
		o := &out[i]
		o.Item, o.Attempt = item, int(m.Attempts[i])
		if text, bad := lookup(failed, uint32(i)); bad {
			o.Err = &WorkError{Worker: addr, Text: text}
		} else if err := cdc.Decode(data, &o.Value); err != nil {
			o.Err = fmt.Errorf("remote: decoding the result of item %d: %w", item, err)
		}
	}
	return out, true
}

// lookup returns the error text of result i in failed, if there is one:
// most messages have no failure, and no map to look in.
func lookup(failed map[uint32]string, i uint32) (string, bool) {
	if failed == nil {
		return "", false
	}
	text, ok := failed[i]
	return text, ok
}

// addr returns a registered worker's address, or "" for one gone.
func (l *link[I, O]) addr(id workerID) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if pid := l.workers[id]; pid != nil {
		return pid.Address
	}
	return ""
}

// leave lets a worker go gracefully: what it hands back is requeued.
func (l *link[I, O]) leave(ctx actor.Context, id workerID, m *wire.Leave) {
	l.mu.Lock()
	pid := l.workers[id]
	if pid != nil {
		delete(l.workers, id)
		delete(l.ids, key(pid))
	}
	l.mu.Unlock()
	if pid != nil {
		ctx.Unwatch(pid)
		l.forget(pid)
		l.post(agent.Event[left]{Value: left{Worker: id, Handed: m.Handed}})
	}
}

// forget drops a worker that has gone from those watching the link, so
// that the link's own end is not reported to it: protoactor would dial the
// dead worker, for nothing, to tell it.
func (l *link[I, O]) forget(worker *actor.PID) {
	if self, ok := l.node.sys.ProcessRegistry.Get(l.pid); ok {
		self.SendSystemMessage(l.pid, &actor.Unwatch{Watcher: worker})
	}
}

// lost tells the master a worker died, unless it had left.
func (l *link[I, O]) lost(who *actor.PID) {
	l.mu.Lock()
	id, ok := l.ids[key(who)]
	if ok {
		delete(l.ids, key(who))
		delete(l.workers, id)
	}
	l.mu.Unlock()
	l.forget(who)
	if ok {
		l.post(agent.Event[lost]{Value: lost{Worker: id}})
	}
}

// send performs a dispatch: it encodes the items and sends them to their
// worker. An item that cannot be encoded comes back to the master as a
// failed attempt, with its slot. A worker that is gone is sent nothing:
// the master requeues its items when it hears it was lost.
func (l *link[I, O]) send(e agent.Effect) bool {
	d, ok := e.(agent.Send[dispatch[I]])
	if !ok {
		x, ok := e.(agent.Send[expel])
		if ok {
			l.expel(x.Value.Worker)
		}
		return ok
	}
	l.mu.Lock()
	pid := l.workers[d.Value.Worker]
	l.mu.Unlock()
	if pid == nil {
		return true
	}
	tasks := d.Value.Tasks
	msg := &wire.Tasks{
		Incarnation: l.inc,
		Worker:      uint64(d.Value.Worker),
		Items:       make([]uint64, 0, len(tasks)),
		Attempts:    make([]uint32, 0, len(tasks)),
		Sizes:       make([]uint32, 0, len(tasks)),
		Values:      make([]byte, 0, 8*len(tasks)),
	}
	var bad []outcome[O]
	for i := range tasks {
		t := &tasks[i]
		before := len(msg.Values)
		values, err := l.codec.Append(msg.Values, &t.Value)
		if err != nil {
			msg.Values = msg.Values[:before]
			bad = append(bad, outcome[O]{Item: t.Item, Attempt: t.Attempt, Err: fmt.Errorf("remote: encoding item %d: %w", t.Item, err)})
			continue
		}
		msg.Values = values
		msg.Items = append(msg.Items, t.Item)
		msg.Attempts = append(msg.Attempts, uint32(t.Attempt))
		msg.Sizes = append(msg.Sizes, uint32(len(values)-before))
	}
	if len(msg.Items) > 0 {
		l.node.sys.Root.Send(pid, msg)
	}
	if len(bad) > 0 {
		l.post(agent.Event[returned[O]]{Value: returned[O]{Worker: d.Value.Worker, Results: bad, Asked: len(bad)}})
	}
	return true
}

// close tells the workers the stage has finished, waits a little for them
// to take the news, and takes the master off its node. Waiting for their
// answers means that a node closed at once after the stage does not lose
// the news on its way; the workers are then dropped from those watching the
// link, so that its end is not sent to workers that have already left.
func (l *link[I, O]) close() {
	l.mu.Lock()
	l.closed = true
	workers := l.workers
	l.workers, l.ids = map[workerID]*actor.PID{}, map[string]workerID{}
	l.mu.Unlock()
	futures := make([]*actor.Future, 0, len(workers))
	for _, pid := range workers {
		futures = append(futures, l.node.sys.Root.RequestFuture(pid, &wire.Finished{}, finishWait))
	}
	for _, f := range futures {
		_ = f.Wait()
	}
	for _, pid := range workers {
		l.forget(pid)
	}
	_ = l.node.sys.Root.StopFuture(l.pid).Wait()
	l.node.free(l.name)
}

// finishWait bounds how long a finished stage waits for each of its workers
// to acknowledge the news; they wait together.
const finishWait = time.Second
