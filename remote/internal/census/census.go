// Package census holds what a remote stage's book knows, counted, as its
// Snapshot answers a Query: package remote reports it in its Status, whose
// doc says what each count is.
package census

import (
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote/internal/fairline"
)

// Snapshot is what a book knows, counted: package remote's Status.
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
	Lines                                  []Line                    // with the book's Config.Drain: each line's, "" first
	Keys                                   map[string]fairline.Count // with the book's Config.Key
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
