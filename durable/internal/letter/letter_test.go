package letter

import (
	"errors"
	"fmt"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/nats-io/nats.go"
)

// TestADeadLetterSaysWhyAndKeepsTheStack writes the dead letter of an item
// a panic failed, stored apart, and reads its headers.
func TestADeadLetterSaysWhyAndKeepsTheStack(t *testing.T) {
	h := nats.Header{"Ref": {"obj-1"}, "Other": {"x"}}
	err := fmt.Errorf("work: %w", &agent.PanicError{Value: "boom", Stack: []byte("goroutine 1\n\tmain.go:3\n\n")})
	m := New("q.dead", []byte("v"), h, "Ref", "k1", err, 3)
	want := map[string][]string{Error: {err.Error()}, Attempts: {"3"}, Key: {"k1"}, nats.MsgIdHdr: {"k1"}, "Ref": {"obj-1"}, Stack: {"goroutine 1", "main.go:3"}}
	for k, v := range want {
		if got := m.Header.Values(k); fmt.Sprint(got) != fmt.Sprint(v) {
			t.Errorf("header %s = %q; want %q", k, got, v)
		}
	}
	if m.Header.Get("Other") != "" || string(m.Data) != "v" || m.Subject != "q.dead" {
		t.Errorf("dead letter %+v", m)
	}
	if m := New("q.dead", nil, nats.Header{}, "Ref", "k2", errors.New("no"), 1); m.Header.Get("Ref") != "" || m.Header.Get(Stack) != "" {
		t.Errorf("a plain failure's letter has %v", m.Header)
	}
}
