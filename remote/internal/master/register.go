package master

import (
	"fmt"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote/internal/book"
	"github.com/evolvekit/evolve/remote/internal/wire"
)

// register takes a worker in, watches it and welcomes it, granting it the
// prefetch it asks for within the stage's (which the book learns too). A worker
// registered already rejoins: it has lost track of what it held (its
// connection broke, or it heard nothing for too long), so it leaves under
// its old ID, what it held queued again with no attempt counted, and joins
// under a new one, which tells its new messages from those of before.
func (l *link[I, O]) register(ctx actor.Context, m *wire.Register) {
	sender := ctx.Sender()
	if sender == nil {
		l.node.Refuse(l.cfg.Name, "a Register with no sender")
		return
	}
	refuse := func(why string) { ctx.Respond(&wire.Welcome{Refused: why, Incarnation: l.inc, Nonce: m.Nonce}) }
	if m.Slots < 1 || int64(m.Slots) > int64(l.cfg.MaxSlots) {
		l.node.Refuse(l.cfg.Name, fmt.Sprintf("a Register from %s for %d slots", key(sender), m.Slots))
		refuse(fmt.Sprintf("slots must be from 1 to %d, got %d", l.cfg.MaxSlots, m.Slots))
		return
	}
	if m.MaxMessage != 0 && m.MaxMessage < wire.MinMessage {
		l.node.Refuse(l.cfg.Name, fmt.Sprintf("a Register from %s for messages of %d bytes", key(sender), m.MaxMessage))
		refuse(fmt.Sprintf("max message must be at least %d bytes, got %d", wire.MinMessage, m.MaxMessage))
		return
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		refuse(wire.StageFinished)
		return
	}
	old, rejoins := l.ids[key(sender)]
	delete(l.workers, old)
	l.next++
	id, prefetch := l.next, min(int(m.Prefetch), l.prefetch)
	l.workers[id] = sender
	l.ids[key(sender)] = id
	delete(l.limits, old)
	l.limits[id] = wire.Limit(l.node.MaxMessage(), m.MaxMessage)
	l.mu.Unlock()
	if rejoins {
		l.post(agent.Event[book.Left]{Value: book.Left{Worker: old}})
	}
	ctx.Watch(sender)
	if !l.post(agent.Event[book.Joined]{Value: book.Joined{Worker: id, Addr: sender.Address, Slots: int(m.Slots), Tags: m.Tags, Prefetch: prefetch}}) {
		refuse(wire.StageFinished)
		return
	}
	// The tasks the Register asks for, as the worker's first Ask would
	// once welcomed: its first tasks go out a round trip sooner. The book
	// hears of them only once the Welcome is on its way: the book may hand
	// the worker tasks at once, from another goroutine, and a worker drops
	// tasks that come before its Welcome (it cannot yet tell they are its
	// own), so they would wait for their leases. Both go the same way to
	// the worker, in the order they are sent.
	asked := min(int64(m.Ask), int64(m.Slots)+int64(prefetch))
	ctx.Respond(&wire.Welcome{Worker: uint64(id), Prefetch: uint32(prefetch), Incarnation: l.inc, Nonce: m.Nonce, Heartbeat: int64(l.cfg.Heartbeat), Lease: int64(l.cfg.Lease), MaxMessage: uint64(l.node.MaxMessage()),
		Asked: uint32(asked), Untimed: !l.cfg.Timed})
	if asked > 0 {
		// The book has finished if this fails: the worker hears so next.
		l.post(agent.Event[book.Asked]{Value: book.Asked{Worker: id, N: int(asked)}})
	}
}

// leave lets a worker go gracefully: what it hands back is queued again.
func (l *link[I, O]) leave(ctx actor.Context, id book.WorkerID, m *wire.Leave) {
	pid := l.unregister(id)
	if pid != nil {
		ctx.Unwatch(pid)
		l.forget(pid)
		l.post(agent.Event[book.Left]{Value: book.Left{Worker: id, Handed: m.Handed}})
	}
}

// lost tells the book a worker died, unless it had left.
func (l *link[I, O]) lost(who *actor.PID) {
	l.mu.Lock()
	id, ok := l.ids[key(who)]
	if ok {
		delete(l.ids, key(who))
		delete(l.workers, id)
		delete(l.limits, id)
	}
	l.mu.Unlock()
	l.forget(who)
	if ok {
		l.post(agent.Event[book.Lost]{Value: book.Lost{Worker: id}})
	}
}

// expel forgets a worker the book gave up for its silence: the link stops
// watching it, and its later messages are refused.
func (l *link[I, O]) expel(id book.WorkerID) {
	pid := l.unregister(id)
	if pid == nil {
		return
	}
	if p, ok := l.node.System().ProcessRegistry.Get(pid); ok {
		p.SendSystemMessage(pid, &actor.Unwatch{Watcher: l.pid})
	}
	l.forget(pid)
}

// unregister forgets the registered worker id and returns its PID, or nil
// if it is not registered.
func (l *link[I, O]) unregister(id book.WorkerID) *actor.PID {
	l.mu.Lock()
	defer l.mu.Unlock()
	pid := l.workers[id]
	if pid != nil {
		delete(l.workers, id)
		delete(l.ids, key(pid))
		delete(l.limits, id)
	}
	return pid
}

// forget drops a worker that has gone from those watching the link, so
// that the link's own end is not reported to it: protoactor would dial the
// dead worker, for nothing, to tell it.
func (l *link[I, O]) forget(worker *actor.PID) {
	if self, ok := l.node.System().ProcessRegistry.Get(l.pid); ok {
		self.SendSystemMessage(l.pid, &actor.Unwatch{Watcher: worker})
	}
}

// addr returns a registered worker's address, or "" for one gone.
func (l *link[I, O]) addr(id book.WorkerID) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if pid := l.workers[id]; pid != nil {
		return pid.Address
	}
	return ""
}
