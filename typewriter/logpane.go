package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/internal/fields"
	"github.com/rs/zerolog"
)

// logPane keeps the last lines logged, for the display to show: on a
// terminal the log goes here rather than over the view. It is safe for
// concurrent use.
type logPane struct {
	mu    sync.Mutex
	lines []string
	keep  int
}

// newLogPane returns an empty pane that keeps keep lines.
func newLogPane(keep int) *logPane { return &logPane{keep: keep} }

// Write takes one or more log lines; the oldest beyond keep are dropped.
func (p *logPane) Write(b []byte) (int, error) {
	text := strings.TrimRight(string(b), "\n")
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lines = append(p.lines, strings.Split(text, "\n")...)
	if over := len(p.lines) - p.keep; over > 0 {
		p.lines = append(p.lines[:0:0], p.lines[over:]...)
	}
	return len(b), nil
}

// tail returns the last n lines, oldest first.
func (p *logPane) tail(n int) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.lines[max(len(p.lines)-n, 0):]...)
}

// logger returns a logger that writes readable lines to p: a status as
// the few counts that fit a line (see brief), not as JSON.
func (p *logPane) logger() zerolog.Logger {
	w := zerolog.ConsoleWriter{Out: p, NoColor: true, TimeFormat: "15:04:05", FieldsExclude: []string{"pid"},
		FormatFieldName: bare, FormatFieldValue: brief}
	return zerolog.New(w).With().Timestamp().Logger()
}

// logAgents logs the status of every agent of st, one event each, in the
// chain's order (rate, then the work, then the buffer), as each agent's own
// LogStatus would: written here, one after another, rather than by each
// agent on its own goroutine, the events cannot come in another order. A
// chain with no status yet logs that.
func logAgents(log zerolog.Logger, st compose.Status) {
	if len(st.Agents) == 0 {
		log.Info().Msg("no status yet")
		return
	}
	for _, a := range st.Agents {
		var v any = a.Load
		if a.Detail != nil {
			v = a.Detail
		}
		log.Info().Str("agent", a.Name).Object("status", fields.Object(v)).Msg("status")
	}
}

// bare writes a field's name, but for the agent and its status, whose
// values say what they are.
func bare(name any) string {
	switch name {
	case "agent", "status":
		return ""
	}
	return fmt.Sprintf("%s=", name)
}

// briefKeys are the fields of a status the log pane shows, in order: what
// every agent's Load says, and the limit or tokens of agents that have one.
var briefKeys = []string{"queued", "in_flight", "limit", "tokens", "done", "failed"}

// brief writes a field's value: an object (an agent's status, which the
// console writer hands over as JSON) as its briefKeys, "3 queued · 1 in
// flight · ..." (failed only when some did; a buffer's keys in flight, which
// its status tells by the lines it has flushed, as flushing, as on the
// screen), and anything else as it is.
func brief(v any) string {
	raw, ok := v.([]byte)
	if !ok || len(raw) == 0 || raw[0] != '{' {
		return fmt.Sprint(v)
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return string(raw)
	}
	var parts []string
	for _, k := range briefKeys {
		x, ok := m[k]
		switch {
		case !ok, k == "failed" && x == 0.0:
		case k == "limit":
			parts = append(parts, fmt.Sprintf("limit %v", x))
		case k == "tokens":
			parts = append(parts, fmt.Sprintf("%.2f tokens", x))
		case k == "in_flight" && m["flushed"] != nil:
			parts = append(parts, fmt.Sprintf("%v flushing", x))
		default:
			parts = append(parts, fmt.Sprintf("%v %s", x, strings.ReplaceAll(k, "_", " ")))
		}
	}
	return strings.Join(parts, " · ")
}
