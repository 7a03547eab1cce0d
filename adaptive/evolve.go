package adaptive

import (
	"math/rand/v2"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/pace"
	"github.com/evolvekit/evolve/parallel"
)

// Evolve is the adaptive agent's whole behaviour, an agent.Evolve over
// [State]. It takes agent.Input[In], agent.Pull, agent.Close, agent.Tick
// (of the retry timer), the agent.Events bringing the passes its retries
// reserved and saying that a rate stage before it keeps a pace (as
// parallel's do), agent.Query (answered with an
// agent.Reply[Status]), agent.Set[Limit] of this package,
// and agent.Done[[]parallel.Result[Out]] for the work it started with an
// agent.Start[[]In] of one item; it answers any other message with
// agent.Unhandled. What it does with them is in the package doc (Evolve,
// Samples).
//
// Evolve is pure; it costs what parallel.Evolve costs, plus one call of the
// controller per Done.
func Evolve[In, Out any](s State[In, Out], m agent.Msg) (State[In, Out], []agent.Effect) {
	fx := s.step(m, nil)
	return s, fx
}

// step is Evolve on s, changed in place, with the effects appended to fx:
// the runtime's way in, which copies no State in or out. The methods below
// change s too.
func (s *State[In, Out]) step(m agent.Msg, fx []agent.Effect) []agent.Effect {
	switch m := m.(type) {
	case agent.Input[In]:
		s.account(m.At)
		return s.p.Step(m, fx)
	case agent.Pull:
		if m.N < 1 {
			return fx
		}
		s.account(m.At)
		return s.p.Step(m, fx)
	case agent.Close:
		s.account(m.At)
		return s.p.Step(m, fx)
	case agent.Event[pace.Pass]:
		s.account(m.At)
		return s.p.Step(m, fx)
	case agent.Event[pace.Paced]:
		s.account(m.At)
		return s.p.Step(m, fx)
	case agent.Tick:
		// Only the retry timer of the parallel part ticks: it says whether
		// it takes this one. account reads the parallel part as it was
		// before the tick, so it is evolved once, and kept afterwards.
		p, tfx := parallel.Evolve(s.p, m)
		if len(tfx) == 1 && tfx[0] == agent.Effect(agent.Unhandled{}) {
			return append(fx, tfx...)
		}
		s.account(m.At)
		s.p = p
		return append(fx, tfx...)
	case agent.Done[[]parallel.Result[Out]]:
		f, ok := s.p.Flight(m.ID)
		if !ok {
			return fx
		}
		s.account(m.At)
		return s.complete(m, f, fx)
	case agent.Set[Limit]:
		if m.Value < 1 {
			return fx
		}
		s.account(m.At)
		return s.limit(int(m.Value), m.At, fx)
	case agent.Query:
		return append(fx, agent.Reply[Status]{To: m.ID, Value: s.Status()})
	}
	return append(fx, agent.Unhandled{})
}

// complete lets the controller observe the work m reports, which started as
// f says, sets the limit it asks for, and then finishes the work.
func (s *State[In, Out]) complete(m agent.Done[[]parallel.Result[Out]], f parallel.Flight, fx []agent.Effect) []agent.Effect {
	smp := s.sample(m, f)
	s.busy, s.since = 0, m.At
	pcg := s.rng
	ctl, want := s.ctl.Observe(smp, rand.New(&pcg))
	s.ctl, s.rng = ctl, pcg
	fx = s.limit(want, m.At, fx)
	return s.p.Step(m, fx)
}

// sample describes the work m finishes, which started as f says.
func (s State[In, Out]) sample(m agent.Done[[]parallel.Result[Out]], f parallel.Flight) Sample {
	st := s.p.Status()
	return Sample{
		At:       m.At,
		Service:  max(m.At.Sub(f.Start), 0),
		Wait:     f.Wait,
		Started:  f.Among,
		InFlight: st.Batches,
		Queued:   st.Queued,
		Limit:    st.Limit,
		Min:      s.min,
		Max:      s.max,
		Elapsed:  max(m.At.Sub(s.since), 0),
		Busy:     s.busy,
		Failed:   failed(m, f),
	}
}

// limit sets the limit to n, within the bounds, appending to fx the effects
// of the work that starts.
func (s *State[In, Out]) limit(n int, at time.Time, fx []agent.Effect) []agent.Effect {
	n = clamp(n, s.min, s.max)
	if n == s.current() {
		return fx
	}
	return s.p.Step(agent.Set[parallel.Limit]{At: at, Value: parallel.Limit(n)}, fx)
}

// failed reports whether an item of the batch f that m finishes failed, as
// parallel counts it: an item with no result in m fails, and so does one
// whose result carries an error.
func failed[Out any](m agent.Done[[]parallel.Result[Out]], f parallel.Flight) bool {
	if len(m.Result) < f.Items {
		return true
	}
	for _, r := range m.Result[:f.Items] {
		if r.Err != nil {
			return true
		}
	}
	return false
}
