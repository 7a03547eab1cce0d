package confirm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrNoStream is the answer to a message no stream took: no stream
// listens on its subject, or none answered in time to the server.
var ErrNoStream = errors.New("no stream answered")

// Result is what a stream answered to one message.
type Result struct {
	// Done reports whether the stream answered; the rest holds only then.
	Done bool
	// Duplicate reports that the stream had the message's ID within its
	// dedupe window already, and did not store it again.
	Duplicate bool
	// Err is the stream's refusal (a *jetstream.APIError), ErrNoStream, or
	// the error of a message that could not be sent.
	Err error
}

// Read returns the Result an answer m says.
func Read(m *nats.Msg) Result {
	data := m.Data
	if len(data) == 0 {
		// A status with no body: no responders.
		return Result{Done: true, Err: fmt.Errorf("%w (status %s)", ErrNoStream, m.Header.Get("Status"))}
	}
	if bytes.HasPrefix(data, []byte(`{"stream":`)) {
		// The servers write a PubAck's stream first, and an error first
		// in an answer that has one; "duplicate" only when true (and a
		// stream's name holds no quote).
		return Result{Done: true, Duplicate: bytes.Contains(data, []byte(`"duplicate"`))}
	}
	var resp struct {
		Error     *jetstream.APIError `json:"error"`
		Duplicate bool                `json:"duplicate"`
	}
	if err := json.Unmarshal(data, &resp); err != nil {
		return Result{Done: true, Err: fmt.Errorf("an answer that is no PubAck: %q", data)}
	}
	if resp.Error != nil {
		return Result{Done: true, Err: resp.Error}
	}
	return Result{Done: true, Duplicate: resp.Duplicate}
}
