package book

import (
	"slices"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote/internal/fairline"
)

// Snapshot is what a book knows, counted: package remote's Status, whose
// doc says what each count is.
type Snapshot struct {
	agent.Load
	Workers                                []Worker
	Tags                                   map[string]int
	Waiting, Held                          int
	Requeued, Retried, Duplicates, Refused int
	Moves                                  int
	Accepted, Emitted                      int
	Closed                                 bool
	Paced                                  bool
	Room                                   int
	Lines                                  []Line                    // with Config.Drain: each line's, "" first
	Keys                                   map[string]fairline.Count // with Config.Key (see fairline.go)
}

// Line is what a book measures of one line, with Config.Drain (see
// package want): package remote's Status has it by tag.
type Line struct {
	Tag                            string
	Want, Queued, Leased, Retrying int
	Rate                           float64 // λ, items a second
	Service                        time.Duration
}

// Worker is what a book knows of one worker: package remote's
// WorkerStatus.
type Worker struct {
	ID                                               uint64
	Addr                                             string
	Tags                                             []string
	Slots, Free, InFlight, Done, Failed, Moved, Hung int
}

// Snapshot returns what b knows, as package remote reports it in its
// Status.
func (b *Book[I, O, R]) Snapshot() Snapshot {
	st := Snapshot{
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
		st.Workers = make([]Worker, len(b.workers))
	}
	for i, w := range b.workers {
		st.Workers[i] = Worker{ID: uint64(w.id), Addr: w.addr, Tags: slices.Clone(w.tags), Slots: w.slots,
			Free: w.free, InFlight: w.flight, Done: w.done, Failed: w.failed, Moved: w.moved, Hung: len(w.hung)}
	}
	return st
}
