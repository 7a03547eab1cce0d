package sim

import (
	"errors"
	"fmt"
)

// conclude fills in what the run saw of the chain as a whole and of each
// agent, once it has stopped.
func (r *chainRunner) conclude() {
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
		r.res.Stages[i] = a.st
	}
	r.res.Finished = r.left == 0
	r.res.Err = errors.Join(errs...)
}

// record appends a sample of each agent, and of the chain as a whole, to
// the traces.
func (r *chainRunner) record() {
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
