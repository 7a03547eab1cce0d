package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/record"
	"github.com/evolvekit/evolve/internal/safe"
)

// Result is what a [Run] went through.
type Result struct {
	// Agents holds what it saw of each agent of the chain, first to last.
	Agents []Agent
	// Messages counts the messages replayed, for all agents.
	Messages int
}

// Agent is what a [Run] saw of one agent.
type Agent struct {
	// Name is the agent's name.
	Name string
	// Messages counts its messages replayed, Effects the effects compared.
	Messages, Effects int
	// Ended says the recording holds the status it ended with, which the
	// replay reached too: Status, nil when evolve gives none.
	Ended  bool
	Status any
}

// Run feeds a recording, which compose.WithRecording wrote of a chain of
// stage, to fresh agents of stage, built from their initial states: to
// each agent the messages it took, in its order, stamped with their
// recorded instants. After each step it compares the effects evolve
// returns, encoded, with those it returned when recorded, byte for byte,
// and after an agent's last step the status it ends with; evolve is pure,
// so a state that differs shows in them. No work runs and no effect is
// performed: the effects are only compared.
//
// stage must be built as the recorded one was: the same agents, with the
// same settings (a retry's seed, say). Run returns what it went through,
// and an error wrapping [ErrRecording] when the recording cannot be read
// (not a recording, of other agents than stage's, the zero Stage's
// included, a step missing, a message the agents do not take), or a
// [*DivergenceError] at the first step whose effects, or final status,
// differ, with what it went through up to it.
func Run[I, O any](stage agent.Stage[I, O], r io.Reader) (*Result, error) {
	plan := core.Unwrap(stage).Plan()
	rd, err := record.Read(r)
	if err != nil {
		return nil, unreadable("%v", err)
	}
	names := make([]string, len(plan.Agents))
	for i, a := range plan.Agents {
		names[i] = a.Name
	}
	if len(names) == 0 || !slices.Equal(names, rd.Agents()) {
		return nil, unreadable("it is of the agents %s, the stage has %s",
			strings.Join(rd.Agents(), ", "), strings.Join(names, ", "))
	}
	p := newReplayer(plan, rd.Base())
	for {
		e, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return &p.res, nil
		}
		if err == nil {
			err = p.replay(e)
		}
		if err != nil {
			return &p.res, err
		}
	}
}

// replayer is a Run in progress: an agent of the stage for each recorded
// one, and the counts.
type replayer struct {
	agents []replayed
	base   time.Time // the recording's base instant
	res    Result
}

// replayed is one agent of a replay.
type replayed struct {
	m   core.Machine
	dec *record.Decoder
}

func newReplayer(plan core.Plan, base time.Time) *replayer {
	p := &replayer{agents: make([]replayed, len(plan.Agents)), base: base, res: Result{Agents: make([]Agent, len(plan.Agents))}}
	for i, a := range plan.Agents {
		m := a.New()
		p.agents[i] = replayed{m: m, dec: record.NewDecoder(base, m.Messages())}
		p.res.Agents[i].Name = a.Name
	}
	return p
}

// replay replays one entry of the recording.
func (p *replayer) replay(e record.Entry) error {
	st := &p.res.Agents[e.Agent]
	if e.Final {
		return p.end(e, st)
	}
	if e.Step != st.Messages+1 || st.Ended {
		return unreadable("line %d: agent %d (%s) has step %d after step %d", e.Line, e.Agent, st.Name, e.Step, st.Messages)
	}
	a := p.agents[e.Agent]
	m, err := e.Message(a.dec)
	if err != nil {
		return unreadable("line %d: agent %d (%s), step %d: %v", e.Line, e.Agent, st.Name, e.Step, err)
	}
	st.Messages++
	p.res.Messages++
	fx, panicked := evolveOnce(a.m, m)
	diverged := func(what, rec, rep string) error {
		return &DivergenceError{Agent: e.Agent, Name: st.Name, Step: e.Step, Message: e.Kind(), What: what, Recorded: rec, Replayed: rep}
	}
	if panicked != nil || e.Panicked {
		if panicked == nil || !e.Panicked {
			return diverged("the panic", panicText(e.Panicked, nil), panicText(panicked != nil, panicked))
		}
		return nil
	}
	got, err := record.EncodeEffects(p.base, fx)
	if err != nil {
		return fmt.Errorf("replay: agent %d (%s), step %d: %w", e.Agent, st.Name, e.Step, err)
	}
	if want := e.Effects(); !bytes.Equal(got, want) {
		return divergence(diverged, want, got)
	}
	st.Effects += len(fx)
	return nil
}

// end compares the status an agent's replay ends with to the recorded one.
func (p *replayer) end(e record.Entry, st *Agent) error {
	if e.Step != st.Messages || st.Ended {
		return unreadable("line %d: agent %d (%s) ends after step %d, replayed %d", e.Line, e.Agent, st.Name, e.Step, st.Messages)
	}
	v, ok := p.agents[e.Agent].m.Status(e.At)
	got, err := record.EncodeStatus(p.base, v, ok)
	if err != nil {
		return fmt.Errorf("replay: agent %d (%s), final status: %w", e.Agent, st.Name, err)
	}
	if want := e.Status(); !bytes.Equal(got, want) {
		return &DivergenceError{Agent: e.Agent, Name: st.Name, Step: e.Step, Message: "final status", What: "the final status",
			Recorded: string(want), Replayed: string(got)}
	}
	st.Ended, st.Status = true, v
	return nil
}

// divergence builds the error for effects that differ: the first effect
// that does, or their number.
func divergence(diverged func(what, rec, rep string) error, want, got []byte) error {
	w, g := record.Elements(want), record.Elements(got)
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return diverged(fmt.Sprintf("effect %d", i), w[i], g[i])
		}
	}
	return diverged("the effects", string(want), string(got))
}

// evolveOnce evolves m with one message; a panic in evolve becomes its
// error.
func evolveOnce(m core.Machine, msg agent.Msg) (fx []agent.Effect, panicked error) {
	panicked = safe.Do(func() { fx = m.Step(msg) })
	return fx, panicked
}

// panicText says whether a step panicked, and with what when known.
func panicText(did bool, p error) string {
	switch {
	case !did:
		return "no panic"
	case p == nil:
		return "a panic"
	}
	return p.Error()
}
