package master

import (
	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote/internal/book"
	"github.com/evolvekit/evolve/remote/internal/wire"
)

// send performs an effect of the book: a Dispatch, whose tasks it encodes
// and sends to their worker, an Expel, a Prefetch, which it grants the
// workers that register from then on, a Want, which it tells
// Config.OnWant, on the master's goroutine, or a Hop, which it logs. A task whose item cannot be encoded,
// or is too large for a message, comes back to the book as a failed
// attempt, with its slot. A worker that
// is gone is sent nothing: the book queues its tasks again when it hears
// it was lost.
func (l *link[I, O]) send(e agent.Effect) bool {
	var d agent.Send[book.Dispatch[I]]
	switch e := e.(type) {
	case agent.Send[book.Dispatch[I]]:
		d = e
	case agent.Send[book.Expel]:
		l.expel(e.Value.Worker)
		return true
	case agent.Send[book.Prefetch]:
		l.mu.Lock()
		l.prefetch = e.Value.N
		l.mu.Unlock()
		return true
	case agent.Send[book.Want]:
		if l.cfg.OnWant != nil {
			l.cfg.OnWant(e.Value.Tag, e.Value.Workers)
		}
		return true
	case agent.Send[book.Hop]:
		h := e.Value
		l.log.Debug().Str("stage", l.cfg.Name).Uint64("item", h.Item).Str("from", h.From).Str("tag", h.Tag).
			Int("hops", h.Hops).Bool("local", h.Local).Msg("remote: an item moved")
		l.moved(h)
		return true
	default:
		return false
	}
	l.mu.Lock()
	pid, limit := l.workers[d.Value.Worker], l.limits[d.Value.Worker]
	l.mu.Unlock()
	if pid == nil {
		return true
	}
	msgs, bad := l.encode(d.Value, limit)
	l.trace(msgs, pid.Address)
	for _, msg := range msgs {
		l.node.System().Root.Send(pid, msg)
	}
	if len(bad) > 0 {
		l.post(agent.Event[book.Outcomes[O]]{Value: book.Outcomes[O]{Worker: d.Value.Worker, Outcomes: bad, Asked: len(bad)}})
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
	l.workers, l.ids = map[book.WorkerID]*actor.PID{}, map[string]book.WorkerID{}
	l.mu.Unlock()
	futures := make([]*actor.Future, 0, len(workers))
	for _, pid := range workers {
		futures = append(futures, l.node.System().Root.RequestFuture(pid, &wire.Finished{}, wire.FinishWait))
	}
	for _, f := range futures {
		_ = f.Wait()
	}
	for _, pid := range workers {
		l.forget(pid)
	}
	_ = l.node.System().Root.StopFuture(l.pid).Wait()
	l.node.Free(l.cfg.Name)
}
