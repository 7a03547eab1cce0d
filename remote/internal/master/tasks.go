package master

import (
	"fmt"

	"github.com/evolvekit/evolve/remote/internal/book"
	"github.com/evolvekit/evolve/remote/internal/wire"
)

// encode lays d's tasks out in Tasks messages of at most limit bytes each
// (wire.Room for an item's bytes, wire.Cost for what it takes), in order,
// and returns the failed outcomes of those whose items could not be
// encoded or are too large for any message.
func (l *link[I, O]) encode(d book.Dispatch[I], limit int) ([]*wire.Tasks, []book.Outcome[O]) {
	tasks, room := d.Tasks, wire.Room(limit)
	var (
		msgs []*wire.Tasks
		msg  *wire.Tasks
		bad  []book.Outcome[O]
		used int
		data []byte // the encoding of the task at hand, reused
	)
	for i := range tasks {
		t := &tasks[i]
		var err error
		data, err = l.cfg.Append(data[:0], &t.Value)
		switch {
		case err != nil:
			err = fmt.Errorf("remote: encoding item %d: %w", t.Item, err)
		case len(data) > room:
			err = wire.TooLarge("item", t.Item, len(data), room)
		}
		if err != nil {
			bad = append(bad, book.Outcome[O]{Item: t.Item, Attempt: t.Attempt, Err: err})
			continue
		}
		if msg == nil || used+wire.Cost(len(data), 0) > room+wire.PerItem {
			msg, used = l.tasks(d.Worker, len(tasks)-i, len(data)), 0
			msgs = append(msgs, msg)
		}
		used += wire.Cost(len(data), 0)
		addTask(msg, t, data)
	}
	return msgs, bad
}

// tasks returns an empty Tasks message for worker, with room for n tasks,
// and for their bytes if they are about size bytes each as the first is,
// up to presize bytes: the bytes of larger tasks grow as they come.
func (l *link[I, O]) tasks(worker book.WorkerID, n, size int) *wire.Tasks {
	return &wire.Tasks{
		Incarnation: l.inc,
		Worker:      uint64(worker),
		Items:       make([]uint64, 0, n),
		Attempts:    make([]uint32, 0, n),
		Sizes:       make([]uint32, 0, n),
		Values:      make([]byte, 0, min(n*size, presize)),
		Moves:       uint32(l.cfg.MaxMoves),
	}
}

// presize bounds the bytes tasks makes room for at once.
const presize = 1 << 20

// addTask adds t, whose item's bytes are data, to msg.
func addTask[I any](msg *wire.Tasks, t *book.Task[I], data []byte) {
	msg.Values = append(msg.Values, data...)
	msg.Items = append(msg.Items, t.Item)
	msg.Attempts = append(msg.Attempts, uint32(t.Attempt))
	msg.Sizes = append(msg.Sizes, uint32(len(data)))
	if t.Hops > 0 && msg.Hops == nil {
		msg.Hops = make([]uint32, len(msg.Items)-1, cap(msg.Items))
	}
	if msg.Hops != nil {
		msg.Hops = append(msg.Hops, uint32(t.Hops))
	}
}
