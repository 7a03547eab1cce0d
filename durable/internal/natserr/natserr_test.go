package natserr

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
)

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"nats://127.0.0.1:4222":                      "nats://127.0.0.1:4222",
		"nats://u:secret@127.0.0.1:4222":             "nats://***@127.0.0.1:4222",
		"nats://a:b@h1:1,nats://h2:2,tls://c:d@h3:3": "nats://***@h1:1,nats://h2:2,tls://***@h3:3",
		"user@host:4222":                             "user@host:4222",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUnusable(t *testing.T) {
	if got := Unusable(&fs.PathError{Op: "open", Path: "x", Err: fs.ErrNotExist}); got != "cannot be read: file does not exist" {
		t.Errorf("a missing file: %q", got)
	}
	if got := Unusable(fmt.Errorf("wrapped: %w", nkeys.ErrNoSeedFound)); got == "" {
		t.Error("a file with no seed is not said to be unusable")
	}
	if got := Unusable(errors.New("other")); got != "" {
		t.Errorf("another error: %q, want none", got)
	}
}

func TestWhy(t *testing.T) {
	if got := Why(nats.ErrAuthorization); got[:len("the server refused")] != "the server refused" {
		t.Errorf("authorization: %q", got)
	}
	if got := Why(nats.ErrNoServers); got[:len("no server answered")] != "no server answered" {
		t.Errorf("no servers: %q", got)
	}
	if got := Why(errors.New("boom")); got != "boom" {
		t.Errorf("other: %q", got)
	}
}

func TestTooFewServers(t *testing.T) {
	if got := TooFewServers(&jetstream.APIError{ErrorCode: errCodeNoPeers}, "nats://h", 3); got == "" {
		t.Error("no peers is not too few servers")
	}
	if got := TooFewServers(&jetstream.APIError{ErrorCode: errCodeReplicasNotSupported}, "nats://h", 3); got == "" {
		t.Error("replicas not supported is not too few servers")
	}
	if got := TooFewServers(&jetstream.APIError{ErrorCode: 1}, "nats://h", 3); got != "" {
		t.Errorf("another API error: %q", got)
	}
	if got := TooFewServers(errors.New("x"), "nats://h", 3); got != "" {
		t.Errorf("not an API error: %q", got)
	}
}
