package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/evolvekit/evolve/agent"
)

// Reader reads a recording a Recorder wrote, one line at a time.
type Reader struct {
	in     *bufio.Reader
	line   int
	base   time.Time
	agents []string
}

// Entry is one line of a recording after its header: a step of an agent,
// or the status it ended with.
type Entry struct {
	// Line is its line in the recording, from 1 for the header.
	Line int
	// Agent is the agent's position in the chain, Name its name.
	Agent int
	Name  string
	// Step counts the agent's steps up to this one, from 1.
	Step int
	// At is the step's instant, rebuilt from the recording's base.
	At time.Time
	// Final says the line holds the agent's final status, not a step.
	Final bool
	// Panicked says evolve panicked on the step's message.
	Panicked bool

	msg, fx, status []byte
}

// Read reads the header of a recording from r.
func Read(r io.Reader) (*Reader, error) {
	rd := &Reader{in: bufio.NewReaderSize(r, 1<<16)}
	raw, err := rd.next()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("the recording is empty")
	}
	if err != nil {
		return nil, err
	}
	var h struct {
		Recording string   `json:"recording"`
		Version   int      `json:"version"`
		Base      int64    `json:"base"`
		Zone      int      `json:"zone"`
		Agents    []string `json:"agents"`
	}
	if err := json.Unmarshal(raw, &h); err != nil || h.Recording != "evolve" {
		return nil, errors.New("line 1 is not the header of a recording")
	}
	if h.Version != recordingVersion {
		return nil, fmt.Errorf("the recording has version %d; this replay reads version %d", h.Version, recordingVersion)
	}
	rd.base = time.Unix(0, h.Base).In(time.FixedZone("", h.Zone))
	rd.agents = h.Agents
	return rd, nil
}

// Base returns the instant the recording starts at, in the zone it was
// recorded in: the instants of its steps, and those it holds, are
// measured from it.
func (rd *Reader) Base() time.Time { return rd.base }

// Agents returns the names of the recorded agents, first to last.
func (rd *Reader) Agents() []string { return rd.agents }

// Next returns the next entry, or io.EOF after the last.
func (rd *Reader) Next() (Entry, error) {
	raw, err := rd.next()
	if err != nil {
		return Entry{}, err
	}
	var l struct {
		Agent *int            `json:"agent"`
		Name  string          `json:"name"`
		Step  int             `json:"step"`
		At    int64           `json:"at"`
		Msg   json.RawMessage `json:"msg"`
		Fx    json.RawMessage `json:"fx"`
		Panic bool            `json:"panic"`
		Final json.RawMessage `json:"final"`
	}
	if err := json.Unmarshal(raw, &l); err != nil || l.Agent == nil || (l.Msg == nil) == (l.Final == nil) {
		return Entry{}, fmt.Errorf("line %d is not a step of a recording", rd.line)
	}
	if *l.Agent < 0 || *l.Agent >= len(rd.agents) {
		return Entry{}, fmt.Errorf("line %d: agent %d, of a recording of %d agents", rd.line, *l.Agent, len(rd.agents))
	}
	return Entry{Line: rd.line, Agent: *l.Agent, Name: l.Name, Step: l.Step, At: rd.base.Add(time.Duration(l.At)),
		Final: l.Final != nil, Panicked: l.Panic, msg: l.Msg, fx: l.Fx, status: l.Final}, nil
}

// next returns the next line that is not blank.
func (rd *Reader) next() ([]byte, error) {
	for {
		raw, err := rd.in.ReadBytes('\n')
		if len(raw) > 0 && err == io.EOF {
			err = nil
		}
		if err != nil {
			return nil, err
		}
		rd.line++
		if raw = bytes.TrimSpace(raw); len(raw) > 0 {
			return raw, nil
		}
	}
}

// Message returns the step's message, read back with d and stamped with
// its instant.
func (e Entry) Message(d *Decoder) (agent.Msg, error) { return d.Message(e.msg, e.At) }

// Kind names the step's message as the recording keys it: "Done", say.
func (e Entry) Kind() string {
	var one map[string]json.RawMessage
	_ = json.Unmarshal(e.msg, &one)
	for k := range one {
		return k
	}
	return "?"
}

// Effects returns the recorded encoding of the step's effects; nil when
// evolve panicked.
func (e Entry) Effects() []byte { return e.fx }

// Status returns the recorded encoding of the final status.
func (e Entry) Status() []byte { return e.status }

// EncodeEffects encodes fx as a recording whose base instant is base
// does, to compare with a recorded step's Effects.
func EncodeEffects(base time.Time, fx []agent.Effect) ([]byte, error) {
	e := encoder{base: base}
	err := e.effects(fx)
	return e.buf, err
}

// EncodeStatus encodes an agent's status as a recording whose base
// instant is base does, to compare with a recorded Status; ok is false
// when evolve gave none.
func EncodeStatus(base time.Time, v any, ok bool) ([]byte, error) {
	e := encoder{base: base}
	err := e.status(v, ok)
	return e.buf, err
}

// Elements splits the encoding of a list, such as that of a step's
// effects, into the encodings of its elements; nil when it is no list.
func Elements(raw []byte) []string {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = string(it)
	}
	return out
}
