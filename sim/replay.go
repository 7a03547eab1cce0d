package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
)

// ErrRecording is reported by [Replay] for a recording it cannot read:
// not one compose.WithRecording wrote, of another chain than the stage
// given, with a step missing, or holding a message the stage's agents do
// not take. errors.Is(err, ErrRecording) is true and the message names
// the line.
var ErrRecording = errors.New("sim: cannot replay the recording")

// ErrDiverged is reported by [Replay] when an agent's evolve, fed a
// recorded message, does not return what it returned when recorded. The
// error is a [*DivergenceError] saying where.
var ErrDiverged = errors.New("sim: the replay diverged from the recording")

// DivergenceError is the error of a [Replay] whose agent did not do again
// what it did when recorded. errors.Is(err, ErrDiverged) is true.
type DivergenceError struct {
	// Agent is the agent's position in the chain, from 0, and Name its
	// name.
	Agent int
	Name  string
	// Step counts the agent's messages up to the one that diverged, from
	// 1; Message is that message's kind ("Done"), or "final status" for
	// the status the agent ended with, checked after its last step.
	Step    int
	Message string
	// What says what differs: "effect 2" (counting from 0), "the
	// effects" (their number), "the panic" (evolve panicked on one side
	// only) or "the final status".
	What string
	// Recorded and Replayed are the encodings of what differs: the
	// effect, all the effects, or the status.
	Recorded, Replayed string
}

// Error names the agent, the step and the difference, showing the two
// encodings around the first byte where they differ.
func (e *DivergenceError) Error() string {
	rec, rep := around(e.Recorded, e.Replayed)
	return fmt.Sprintf("sim: replay: agent %d (%s), step %d (%s): %s differs: recorded %s, replayed %s",
		e.Agent, e.Name, e.Step, e.Message, e.What, rec, rep)
}

// Is reports whether target is ErrDiverged.
func (e *DivergenceError) Is(target error) bool { return target == ErrDiverged }

// around returns a and b cut to some 60 bytes on either side of the first
// byte where they differ.
func around(a, b string) (string, string) {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	cut := func(s string) string {
		from, to := max(i-60, 0), min(i+60, len(s))
		out := s[from:to]
		if from > 0 {
			out = "…" + out
		}
		if to < len(s) {
			out += "…"
		}
		return out
	}
	return cut(a), cut(b)
}

// ReplayResult is what a [Replay] went through. A Replay costs the
// decoding of every message and the encoding of every effect: some ten
// microseconds a step, for the steps of a rate, parallel and buffer chain.
type ReplayResult struct {
	// Agents holds what it saw of each agent of the chain, first to last.
	Agents []ReplayedAgent
	// Messages counts the messages replayed, for all agents.
	Messages int
}

// ReplayedAgent is what a [Replay] saw of one agent.
type ReplayedAgent struct {
	// Name is the agent's name.
	Name string
	// Messages counts its messages replayed, Effects the effects compared.
	Messages, Effects int
	// Ended says the recording holds the status it ended with, which the
	// replay reached too: Status, nil when evolve gives none.
	Ended  bool
	Status any
}

// ReplayOption configures a [Replay].
type ReplayOption func(*replayOptions)

type replayOptions struct {
	messages []agent.Msg
}

// WithMessages names the agent.Set and agent.Event types a recording may
// hold, by a zero value of each, as in WithMessages(agent.Set[MyLimit]{}):
// their payload types are their own package's, which the stage does not
// tell. Replay knows those of this module's agents (the Set messages of
// parallel.Limit, adaptive.Limit and rate.Limit, which their SetLimit
// sends, and a chain that shares workers among its stages); a recording
// that holds another not named fails with [ErrRecording].
func WithMessages(msgs ...agent.Msg) ReplayOption {
	return func(o *replayOptions) { o.messages = append(o.messages, msgs...) }
}

// known are the Set messages of this module's agents.
var known = []agent.Msg{agent.Set[parallel.Limit]{}, agent.Set[adaptive.Limit]{}, agent.Set[rate.Limit]{}}

// Replay feeds a recording, which compose.WithRecording wrote of a chain of
// stage, to fresh agents of stage, built from their initial states: to
// each agent the messages it took, in its order, stamped with their
// recorded instants. After each step it compares the effects evolve
// returns, encoded, with those it returned when recorded, byte for byte,
// and after an agent's last step the status it ends with; evolve is pure,
// so a state that differs shows in them. No work runs and no effect is
// performed: the effects are only compared. The package doc says how
// values and errors are read back.
//
// stage must be built as the recorded one was: the same agents, with the
// same settings (a retry's seed, say). It returns what it went through,
// and an error wrapping [ErrRecording] when the recording cannot be read
// (not a recording, of other agents, a step missing, a message the
// agents do not take), or a [*DivergenceError] at the first step whose
// effects, or final status, differ, with what it went through up to it.
func Replay[I, O any](stage agent.Stage[I, O], r io.Reader, opts ...ReplayOption) (*ReplayResult, error) {
	var o replayOptions
	for _, opt := range opts {
		opt(&o)
	}
	plan := core.Unwrap(stage).Plan()
	if len(plan.Agents) == 0 {
		return nil, invalid("the zero Stage cannot replay; make one with an agent package's Stage")
	}
	rd, err := core.ReadRecording(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRecording, err)
	}
	names := make([]string, len(plan.Agents))
	for i, a := range plan.Agents {
		names[i] = a.Name
	}
	if !slices.Equal(names, rd.Agents()) {
		return nil, fmt.Errorf("%w: it is of the agents %s, the stage has %s", ErrRecording,
			strings.Join(rd.Agents(), ", "), strings.Join(names, ", "))
	}
	p := newReplayer(plan, rd.Base(), slices.Concat(known, o.messages))
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

// replayer is a Replay in progress: an agent of the stage for each
// recorded one, and the counts.
type replayer struct {
	agents []replayed
	base   time.Time // the recording's base instant
	res    ReplayResult
}

// replayed is one agent of a replay.
type replayed struct {
	m   core.Machine
	dec *core.Decoder
}

func newReplayer(plan core.Plan, base time.Time, extra []agent.Msg) *replayer {
	p := &replayer{agents: make([]replayed, len(plan.Agents)), base: base, res: ReplayResult{Agents: make([]ReplayedAgent, len(plan.Agents))}}
	for i, a := range plan.Agents {
		m := a.New()
		p.agents[i] = replayed{m: m, dec: core.NewDecoder(base, m, extra)}
		p.res.Agents[i].Name = a.Name
	}
	return p
}

// replay replays one entry of the recording.
func (p *replayer) replay(e core.Entry) error {
	st := &p.res.Agents[e.Agent]
	if e.Final {
		return p.end(e, st)
	}
	if e.Step != st.Messages+1 || st.Ended {
		return fmt.Errorf("%w: line %d: agent %d (%s) has step %d after step %d", ErrRecording, e.Line, e.Agent, st.Name, e.Step, st.Messages)
	}
	a := p.agents[e.Agent]
	m, err := e.Message(a.dec)
	if err != nil {
		return fmt.Errorf("%w: line %d: agent %d (%s), step %d: %v", ErrRecording, e.Line, e.Agent, st.Name, e.Step, err)
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
	got, err := core.EncodeEffects(p.base, fx)
	if err != nil {
		return fmt.Errorf("sim: replay: agent %d (%s), step %d: %w", e.Agent, st.Name, e.Step, err)
	}
	if want := e.Effects(); !bytes.Equal(got, want) {
		return divergence(diverged, want, got)
	}
	st.Effects += len(fx)
	return nil
}

// end compares the status an agent's replay ends with to the recorded one.
func (p *replayer) end(e core.Entry, st *ReplayedAgent) error {
	if e.Step != st.Messages || st.Ended {
		return fmt.Errorf("%w: line %d: agent %d (%s) ends after step %d, replayed %d", ErrRecording, e.Line, e.Agent, st.Name, e.Step, st.Messages)
	}
	v, ok := p.agents[e.Agent].m.Status(e.At)
	got, err := core.EncodeStatus(p.base, v, ok)
	if err != nil {
		return fmt.Errorf("sim: replay: agent %d (%s), final status: %w", e.Agent, st.Name, err)
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
	w, g := core.SplitList(want), core.SplitList(got)
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return diverged(fmt.Sprintf("effect %d", i), w[i], g[i])
		}
	}
	return diverged("the effects", string(want), string(got))
}

// evolveOnce evolves m with one message; a panic in evolve is returned.
func evolveOnce(m core.Machine, msg agent.Msg) (fx []agent.Effect, panicked any) {
	defer func() {
		if p := recover(); p != nil {
			panicked = p
		}
	}()
	return m.Step(msg), nil
}

func panicText(did bool, p any) string {
	switch {
	case !did:
		return "no panic"
	case p == nil:
		return "a panic"
	}
	return fmt.Sprintf("panic: %v", p)
}
