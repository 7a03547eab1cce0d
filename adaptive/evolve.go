package adaptive

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/parallel"
)

// Evolve is the adaptive agent's whole behaviour, an [agent.Evolve] over
// [State]. It handles messages as [parallel.Evolve] does, and feeds its
// controller:
//
//   - agent.Input[In] queues items; agent.Pull grants demand (N below 1 is
//     ignored); agent.Close ends the input.
//   - agent.Done[[]parallel.Result[Out]] finishes the work started under
//     that ID, one item, as parallel's batches of one (a Done for an
//     ID not in flight is ignored). First the controller observes a [Sample]
//     of it (its service time from Start to Done, its queue wait, the
//     concurrency it ran at, how long the agent was saturated since the last
//     sample) and the limit becomes what the controller asks for, within
//     [Min, Max]; then the result is held and emitted as parallel does.
//   - agent.Set[Limit] sets the limit by hand, brought within [Min, Max] (a
//     limit below 1 is ignored); the controller carries on from there.
//   - agent.Query is answered with an agent.Reply[Status] and changes
//     nothing.
//
// Any other message leaves the state as it is and asks for nothing. After
// each message Evolve emits what it may, starts waiting items while fewer
// than the limit are in flight and demand allows, gives their input slots
// back, and finishes once input is closed and nothing is left, with the
// first failure it saw.
//
// Evolve is pure; it costs what parallel.Evolve costs, plus one call of the
// controller per Done and a copy of the list of work in flight.
func Evolve[In, Out any](s State[In, Out], m agent.Msg) (State[In, Out], []agent.Effect) {
	switch m := m.(type) {
	case agent.Input[In]:
		s = s.account(m.At)
		for range m.Items {
			s.arrived = s.arrived.Push(m.At)
		}
		return s.pass(m, m.At)
	case agent.Done[[]parallel.Result[Out]]:
		i, ok := s.find(m.ID)
		if !ok {
			return s, nil
		}
		return s.account(m.At).complete(m, i)
	case agent.Pull:
		if m.N < 1 {
			return s, nil
		}
		return s.account(m.At).pass(m, m.At)
	case agent.Close:
		return s.account(m.At).pass(m, m.At)
	case agent.Set[Limit]:
		if m.Value < 1 {
			return s, nil
		}
		return s.account(m.At).limit(int(m.Value), m.At, nil)
	case agent.Query:
		return s, []agent.Effect{agent.Reply[Status]{To: m.ID, Value: s.Status()}}
	}
	return s, nil
}

// pass hands m to the parallel part and records the work it starts.
func (s State[In, Out]) pass(m agent.Msg, at time.Time) (State[In, Out], []agent.Effect) {
	var fx []agent.Effect
	s.p, fx = parallel.Evolve(s.p, m)
	return s.track(fx, at), fx
}

// complete lets the controller observe the work m reports, sets the limit
// it asks for, and then finishes the work.
func (s State[In, Out]) complete(m agent.Done[[]parallel.Result[Out]], i int) (State[In, Out], []agent.Effect) {
	smp := s.sample(m, s.flights[i])
	s.busy, s.since = 0, m.At
	pcg := s.rng
	ctl, want := s.ctl.Observe(smp, rand.New(&pcg))
	s.ctl, s.rng = ctl, pcg
	s, fx := s.limit(want, m.At, nil)
	s.flights = slices.Delete(slices.Clone(s.flights), i, i+1)
	var more []agent.Effect
	s, more = s.pass(m, m.At)
	return s, append(fx, more...)
}

// sample describes the work f that m finishes.
func (s State[In, Out]) sample(m agent.Done[[]parallel.Result[Out]], f flight) Sample {
	st := s.p.Status()
	return Sample{
		At:       m.At,
		Service:  max(m.At.Sub(f.at), 0),
		Wait:     f.wait,
		Started:  f.started,
		InFlight: st.InFlight,
		Queued:   st.Queued,
		Limit:    st.Limit,
		Min:      s.min,
		Max:      s.max,
		Elapsed:  max(m.At.Sub(s.since), 0),
		Busy:     s.busy,
		Failed:   failed(m),
	}
}

// limit sets the limit to n, within the bounds, appending to fx the effects
// of the work that starts.
func (s State[In, Out]) limit(n int, at time.Time, fx []agent.Effect) (State[In, Out], []agent.Effect) {
	n = clamp(n, s.min, s.max)
	if n == s.Limit() {
		return s, fx
	}
	s, more := s.pass(agent.Set[parallel.Limit]{At: at, Value: parallel.Limit(n)}, at)
	return s, append(fx, more...)
}

// track records when each piece of work fx starts began, how long its item
// waited, and the concurrency it starts at.
func (s State[In, Out]) track(fx []agent.Effect, at time.Time) State[In, Out] {
	var flights []flight
	for _, e := range fx {
		st, ok := e.(agent.Start[parallel.Batch[In]])
		if !ok {
			continue
		}
		if flights == nil {
			flights = slices.Grow(slices.Clone(s.flights), len(fx))
		}
		var arrived time.Time
		arrived, s.arrived = s.arrived.Pop()
		flights = append(flights, flight{id: st.ID, at: at, wait: max(at.Sub(arrived), 0), started: len(flights) + 1})
	}
	if flights != nil {
		s.flights = flights
	}
	return s
}

// failed reports whether the work m reports failed.
func failed[Out any](m agent.Done[[]parallel.Result[Out]]) bool {
	if m.Err != nil {
		return true
	}
	for _, r := range m.Result {
		if r.Err != nil {
			return true
		}
	}
	return false
}
