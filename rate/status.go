package rate

import (
	"time"

	"github.com/evolvekit/evolve/agent"
)

// Status is a snapshot of a rate agent, as [State.Status] and its handle's
// Status return it. Its agent.Load counts items: Queued those waiting to be
// passed on, Done those passed on; InFlight and Failed are always 0.
type Status struct {
	agent.Load
	Rate   float64 // refill rate, tokens per second
	Burst  int     // capacity of the bucket
	Tokens float64 // tokens in the bucket at the instant of the snapshot
	Queue  int     // bound of the input queue, in items
	Closed bool    // input has ended
	// Reserved counts the passes the agent after this one in a chain
	// reserved and waits for, Granted those it was granted: retries that
	// spent this agent's tokens.
	Reserved, Granted int
	// Shared is true for an agent of a Config.Shared limit: Rate and Burst
	// are then the share of the limit granted to it, 0 while it holds none.
	Shared bool
	// Keys, with a Config.Key, counts the items of each key waiting (in
	// its line, or chosen and waiting for tokens); Started those of each
	// key its line let through since it last had none waiting there; and
	// Weights weighs each key in either. A key with neither is in none.
	Keys, Started, Weights map[string]int
}

// Status returns a snapshot of s at instant at, with the bucket refilled up
// to at. It does not change s.
func (s State[T]) Status(at time.Time) Status {
	st := Status{
		Load: agent.Load{Queued: s.waiting(), Done: s.passed, Demand: agent.Credit(s.demand)},
		Rate: s.bucket.limit.Rate, Burst: s.bucket.limit.Burst,
		Tokens: max(s.bucket.level(at), 0), Queue: s.bound, Closed: s.closed,
		Reserved: s.owed, Granted: s.granted, Shared: s.shared,
	}
	s.keys(&st)
	return st
}

// keys fills in st's figures by key, with a Key.
func (s State[T]) keys(st *Status) {
	if s.line == nil {
		return
	}
	st.Keys, st.Started, st.Weights = map[string]int{}, map[string]int{}, map[string]int{}
	s.line.Each(func(k string, queued, started, weight int) {
		if queued > 0 {
			st.Keys[k] = queued
		}
		st.Started[k], st.Weights[k] = started, weight
	})
	for i := range s.staged.Len() {
		k := s.staged.At(i)
		st.Keys[k]++
		st.Weights[k] = s.line.Weight(k)
	}
}
