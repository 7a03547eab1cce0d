package agenttest

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/agent"
)

// T0 is the instant step times are measured from.
var T0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Step is one message delivered at T0 + At.
type Step struct {
	At  time.Duration
	Msg agent.Msg
}

// Trace is what one step produced: the state after it and its effects.
type Trace[S any] struct {
	State   S
	Effects []agent.Effect
}

// Run feeds steps to evolve, starting from s, stamping each message with its
// instant, and returns one Trace per step.
//
// A state that evolve updates in place (one that holds a pointer, a slice
// or a map it writes through) is cloned before each step if its type has a
// method Clone() S: each Trace then holds the state as it was after its
// step, and s is left as it was. Such a state without that method is
// passed on as it is, and every Trace shows the state after the last step.
//
// A step whose message evolve does not handle (it returns agent.Unhandled)
// is a mistake in the test or in the agent, a Done or Set of the wrong
// type, say: Run panics, naming the step and the message's type. A test
// that means to send one calls evolve itself.
func Run[S any](evolve agent.Evolve[S], s S, steps ...Step) []Trace[S] {
	out := make([]Trace[S], 0, len(steps))
	for i, st := range steps {
		if c, ok := any(s).(interface{ Clone() S }); ok {
			s = c.Clone()
		}
		var fx []agent.Effect
		s, fx = evolve(s, agent.Stamp(st.Msg, T0.Add(st.At)))
		if len(Of[agent.Unhandled](fx)) > 0 {
			panic(fmt.Sprintf("agenttest: step %d: evolve did not handle %T", i, st.Msg))
		}
		out = append(out, Trace[S]{State: s, Effects: fx})
	}
	return out
}

// Last returns the state after the last step of traces, or the zero S when
// there are none.
func Last[S any](traces []Trace[S]) S {
	var s S
	if len(traces) > 0 {
		s = traces[len(traces)-1].State
	}
	return s
}

// Of returns the effects in fx of type E, in order, for assertions that care
// about one kind of effect.
func Of[E agent.Effect](fx []agent.Effect) []E {
	var out []E
	for _, e := range fx {
		if x, ok := e.(E); ok {
			out = append(out, x)
		}
	}
	return out
}

// Emitted returns every value emitted in fx, in order.
func Emitted[O any](fx []agent.Effect) []O {
	var out []O
	for _, e := range Of[agent.Emit[O]](fx) {
		out = append(out, e.Values...)
	}
	return out
}

// Demanded returns the input slots given back in fx.
func Demanded(fx []agent.Effect) int {
	n := 0
	for _, d := range Of[agent.Demand](fx) {
		n += d.N
	}
	return n
}
