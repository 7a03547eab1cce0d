package master

import (
	"fmt"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote/internal/book"
	"github.com/evolvekit/evolve/remote/internal/wire"
)

// send performs an effect of the book: a Dispatch, whose tasks it encodes
// and sends to their worker, an Expel, a Prefetch, which it grants the
// workers that register from then on, a Want, which it tells
// Config.OnWant, on the master's goroutine, or a Hop, which it logs. A task whose item cannot be encoded
// comes back to the book as a failed attempt, with its slot. A worker that
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
		return true
	default:
		return false
	}
	l.mu.Lock()
	pid := l.workers[d.Value.Worker]
	l.mu.Unlock()
	if pid == nil {
		return true
	}
	msg, bad := l.encode(d.Value)
	if len(msg.Items) > 0 {
		l.node.System().Root.Send(pid, msg)
	}
	if len(bad) > 0 {
		l.post(agent.Event[book.Outcomes[O]]{Value: book.Outcomes[O]{Worker: d.Value.Worker, Outcomes: bad, Asked: len(bad)}})
	}
	return true
}

// encode lays d's tasks out in a Tasks message, and returns the failed
// outcomes of those whose items could not be encoded.
func (l *link[I, O]) encode(d book.Dispatch[I]) (*wire.Tasks, []book.Outcome[O]) {
	tasks := d.Tasks
	msg := &wire.Tasks{
		Incarnation: l.inc,
		Worker:      uint64(d.Worker),
		Items:       make([]uint64, 0, len(tasks)),
		Attempts:    make([]uint32, 0, len(tasks)),
		Sizes:       make([]uint32, 0, len(tasks)),
		Values:      make([]byte, 0, 8*len(tasks)),
		Moves:       uint32(l.cfg.MaxMoves),
	}
	var bad []book.Outcome[O]
	for i := range tasks {
		t := &tasks[i]
		before := len(msg.Values)
		values, err := l.cfg.Append(msg.Values, &t.Value)
		if err != nil {
			msg.Values = msg.Values[:before]
			bad = append(bad, book.Outcome[O]{Item: t.Item, Attempt: t.Attempt, Err: fmt.Errorf("remote: encoding item %d: %w", t.Item, err)})
			continue
		}
		msg.Values = values
		msg.Items = append(msg.Items, t.Item)
		msg.Attempts = append(msg.Attempts, uint32(t.Attempt))
		msg.Sizes = append(msg.Sizes, uint32(len(values)-before))
		if t.Hops > 0 && msg.Hops == nil {
			msg.Hops = make([]uint32, len(msg.Items)-1, len(tasks))
		}
		if msg.Hops != nil {
			msg.Hops = append(msg.Hops, uint32(t.Hops))
		}
	}
	return msg, bad
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
