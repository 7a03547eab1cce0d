package keys

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
)

func TestMarkers(t *testing.T) {
	s := Subject("q.keys.", "a key. with * and > in it")
	assert.Regexp(t, `^q\.keys\.[0-9a-f]{32}$`, s, "one token, whatever the key")
	assert.NotEqual(t, s, Subject("q.keys.", "another key"))
	for left, want := range map[time.Duration]string{time.Millisecond: "1s", time.Second: "1s", 1500 * time.Millisecond: "2s", 2 * time.Minute: "120s"} {
		h, ok := TTL(left)
		assert.True(t, ok)
		assert.Equal(t, want, h.Get(jetstream.MsgTTLHeader), "TTL(%v)", left)
	}
	_, ok := TTL(0)
	assert.False(t, ok, "a window already over needs no marker")
	assert.True(t, Refused(fmt.Errorf("publishing: %w", &jetstream.APIError{ErrorCode: errCodeWrongLastSeq})))
	assert.False(t, Refused(&jetstream.APIError{ErrorCode: 10060}))
	assert.False(t, Refused(errors.New("wrong last sequence")), "said in words only")
}
