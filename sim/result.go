package sim

import (
	"errors"
	"fmt"
	"time"
)

// Result is what a run saw: the totals of the run, and what it saw of each
// of its agents in Agents.
type Result struct {
	// Trace holds the periodic samples, if Config.Every was set: each sums
	// those of the agents, and its Backlog is the first agent's.
	Trace Trace
	// Digest is a hash of every message delivered, in order: two runs that
	// agree on it delivered the same messages at the same instants.
	Digest uint64
	// Messages counts the messages delivered to the agents' evolve
	// functions.
	Messages int64
	// Arrived counts the items that arrived, Posted those handed to the
	// first agent, Started and Done the work started and finished by all
	// the agents, and Emitted the values the last agent passed on to the
	// sink.
	Arrived, Posted, Started, Done, Emitted int64
	// End is the virtual time the run stopped at, and Throughput the
	// values emitted per second of it.
	End        time.Duration
	Throughput float64
	// Finished is true when every agent sent Finish; Err joins their
	// errors, each prefixed with the agent's name.
	Finished bool
	Err      error
	// Agents holds what the run saw of each agent, first to last: one for
	// a lone agent, three for a Stage of compose.Pipe3.
	Agents []AgentResult
}

// AgentResult is what a run saw of one of its agents.
type AgentResult struct {
	// Name is the agent's name; Queue is the bound of its input queue.
	Name  string
	Queue int
	// Messages counts the messages delivered to the agent's evolve.
	Messages int64
	// Taken counts the items handed to the agent; Refused those that the
	// stage's MapIn functions refused on their way in.
	Taken, Refused int64
	// Started and Done count its work started and finished; Emitted the
	// values it emitted, and Declined those of them that its MapOut
	// functions did not pass on (a parallel stage's failed results).
	Started, Done, Emitted, Declined int64
	// Reserved counts the passes it reserved (for its retries behind a
	// rate stage), Granted those it granted as a pacer (a rate stage), and
	// DeadLetters the items it gave up on (agent.DeadLetter): a run has no
	// dead-letter sink.
	Reserved, Granted, DeadLetters int64
	// MaxQueued is the most items the agent held at once, handed to it
	// and not yet given back with Demand: never more than Queue.
	MaxQueued int
	// Finished is true once the agent sent Finish; Err is its error: the
	// one its Finish carried, joined to those of a MapOut function that
	// panicked and of the items its MapIn functions refused.
	Finished bool
	Err      error
	// Status is the agent's status when it finished, or when the run
	// stopped; nil when its evolve gives none.
	Status any
	// Service holds the service time of every piece of its work done, from
	// its Start to its Done.
	Service Histogram
	// Trace holds its periodic samples, if Config.Every was set.
	Trace Trace
}

// conclude fills in what the run saw of the agents, and of the run as a
// whole, once it has stopped.
func (r *runner) conclude() {
	var errs []error
	for i := range r.agents {
		a := &r.agents[i]
		if !a.over {
			a.st.Status, _ = a.m.Status(r.at())
		}
		var refused error
		if a.refusal != nil {
			refused = fmt.Errorf("agent %s: refused %d items passed on to it, the first because: %w", a.Name, a.st.Refused, a.refusal)
		}
		a.st.Err = errors.Join(a.failed, a.sinkErr, refused)
		if a.st.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", a.Name, a.st.Err))
		}
		r.res.Started += a.st.Started
		r.res.Done += a.st.Done
		r.res.Agents[i] = a.st
	}
	r.res.Finished = r.left == 0
	r.res.Err = errors.Join(errs...)
}

// record appends a sample of each agent, and of the run as a whole, to the
// traces.
func (r *runner) record() {
	if r.cfg.Every <= 0 {
		return
	}
	if n := len(r.res.Trace); n > 0 && r.res.Trace[n-1].At == r.now {
		return
	}
	whole := Sample{At: r.now, Backlog: r.backlog, Emitted: r.res.Emitted}
	for i := range r.agents {
		a := &r.agents[i]
		s := Sample{At: r.now, InFlight: len(a.running), Queued: a.held, Started: a.st.Started, Done: a.st.Done, Emitted: a.st.Emitted}
		if i == 0 {
			s.Backlog = r.backlog
		}
		if r.limit != nil {
			if st, ok := a.m.Status(r.at()); ok {
				s.Limit = r.limit(st)
			}
		}
		a.st.Trace = append(a.st.Trace, s)
		whole.Limit += s.Limit
		whole.InFlight += s.InFlight
		whole.Queued += s.Queued
		whole.Started += s.Started
		whole.Done += s.Done
	}
	r.res.Trace = append(r.res.Trace, whole)
}
