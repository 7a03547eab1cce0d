// Package letter writes a durable queue's dead letters: each a message of
// the dead letters' stream that holds the item's bytes as they were
// added, and says in headers its key, why it failed, after how many
// attempts, and the stack of the panic that failed it, if one did.
package letter

import (
	"errors"
	"strconv"
	"strings"

	"github.com/evolvekit/evolve/agent"
	"github.com/nats-io/nats.go"
)

// The headers of a dead letter.
const (
	Error    = "Evolve-Error"
	Attempts = "Evolve-Attempts"
	Key      = "Evolve-Key"
	Stack    = "Evolve-Stack"
)

// New returns the dead letter, on subject, of the item of key whose
// message held data and headers h, which failed with err after attempts.
// It keeps the reference to an object stored apart (the header ref of h,
// if any), and is its key's message ID in the dead letters' stream. A
// header value is one line: a panic's stack takes one value a line.
func New(subject string, data []byte, h nats.Header, ref, key string, err error, attempts int) *nats.Msg {
	m := nats.NewMsg(subject)
	m.Data = data
	if r := h.Get(ref); r != "" {
		m.Header.Set(ref, r)
	}
	m.Header.Set(Error, err.Error())
	m.Header.Set(Attempts, strconv.Itoa(attempts))
	m.Header.Set(Key, key)
	m.Header.Set(nats.MsgIdHdr, key)
	if p := (*agent.PanicError)(nil); errors.As(err, &p) {
		for line := range strings.Lines(string(p.Stack)) {
			if line = strings.TrimSpace(line); line != "" {
				m.Header.Add(Stack, line)
			}
		}
	}
	return m
}
