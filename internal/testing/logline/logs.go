// Package logline reads back what the runtime logged, for the module's tests
// of LogStatus.
package logline

import (
	"bytes"
	"encoding/json"
	"testing"
)

// Event is one zerolog event as LogStatus writes it.
type Event struct {
	Level   string
	Agent   string
	PID     string
	Message string
	Status  map[string]any
}

// Last decodes the last line of a zerolog JSON log, failing the test if it
// is not one event.
func Last(tb testing.TB, logs []byte) Event {
	tb.Helper()
	lines := bytes.Split(bytes.TrimSpace(logs), []byte("\n"))
	var ev Event
	if err := json.Unmarshal(lines[len(lines)-1], &ev); err != nil {
		tb.Fatalf("the last log line is not an event: %v\n%s", err, logs)
	}
	return ev
}
