package spawn

import "github.com/evolvekit/evolve/internal/budget"

// Workers is what an agent's status says of its workers, for a chain that
// shares its workers among its stages (compose.WithWorkers).
type Workers struct {
	// Queued counts the items waiting for a worker.
	Queued int
	// Busy counts the workers at work now: the agent.Start effects whose
	// work has not come back, each taking one worker.
	Busy int
	// Done counts the items whose work has ended so far, failed or not.
	Done int
	// Limit is the most workers the agent may keep busy at once.
	Limit int
}

// Share is how an agent shares the workers of a chain; make one with
// [ShareWorkers]. The zero Share is not valid.
type Share struct {
	share *budget.Share
}

// ShareWorkers returns the Share of an agent whose status (the value of
// its agent.Reply) is a V and whose limit an agent.Set[C] sets: read says
// what a status tells of the agent's workers, limit makes the C that sets
// its limit to n. A chain started with compose.WithWorkers reads the
// agent's status on a period and hands it an agent.Set[C] whenever its
// share of the workers is not its limit; its evolve must take that Set and
// start no more work at once than the limit it carries. Both functions are
// called outside the agent, by what shares the workers (a chain, or the
// simulator), and must not block.
func ShareWorkers[V, C any](read func(V) Workers, limit func(n int) C) *Share {
	if read == nil || limit == nil {
		return &Share{}
	}
	return &Share{share: budget.Shares(func(v V) budget.Reading {
		w := read(v)
		return budget.Reading{Queued: w.Queued, Busy: w.Busy, Done: w.Done, Limit: w.Limit}
	}, limit)}
}
