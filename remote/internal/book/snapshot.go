package book

import (
	"slices"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote/internal/census"
)

// Snapshot returns what b knows, counted, for package remote's Status.
func (b *Book[I, O, R]) Snapshot() census.Snapshot {
	st := census.Snapshot{
		Load: agent.Load{
			Queued:   b.queued,
			InFlight: b.leased,
			Done:     b.done,
			Failed:   b.failed,
			Demand:   agent.Credit(b.demand),
		},
		Held:       b.nHeld,
		Requeued:   b.requeued,
		Retried:    b.retried,
		Duplicates: b.duplicates,
		Refused:    b.refused,
		Moves:      b.moves,
		Accepted:   int(b.accepted),
		Emitted:    b.emitted,
		Closed:     b.closed,
		Paced:      b.pacer.Paced(),
		Room:       b.pacer.Room(),
		Lines:      b.figures(),
		Keys:       b.keys(),
	}
	for i := range b.lines {
		l := &b.lines[i]
		n := b.inLine(i)
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
		st.Workers = make([]census.Worker, len(b.workers))
	}
	for i, w := range b.workers {
		st.Workers[i] = census.Worker{ID: uint64(w.id), Addr: w.addr, Tags: slices.Clone(w.tags), Slots: w.slots,
			Free: w.free, InFlight: w.flight, Done: w.done, Failed: w.failed, Moved: w.moved, Hung: len(w.hung)}
	}
	return st
}
