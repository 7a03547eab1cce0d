package loopback_test

import (
	"errors"
	"testing"

	"github.com/evolvekit/evolve/internal/loopback"
	"github.com/stretchr/testify/assert"
)

func TestIsTheLoopbackOnly(t *testing.T) {
	for _, host := range []string{"localhost", "127.0.0.1", "127.3.2.1", "::1"} {
		assert.True(t, loopback.Is(host), host)
	}
	for _, host := range []string{"", "0.0.0.0", "::", "10.0.0.5", "example.com", "localhost.example.com"} {
		assert.False(t, loopback.Is(host), host)
	}
}

func TestRequireAsksForTLSOrAllowInsecureOffTheLoopback(t *testing.T) {
	kind := errors.New("pkg: invalid setting")
	err := loopback.Require(kind, "pkg", "10.0.0.5:7070", "10.0.0.5", false, false)
	assert.ErrorIs(t, err, kind)
	assert.EqualError(t, err, "pkg: 10.0.0.5:7070 is off the loopback: connections to it need TLS, or AllowInsecure to send everything in the clear to whoever reaches it")
	assert.NoError(t, loopback.Require(kind, "pkg", "10.0.0.5:7070", "10.0.0.5", true, false))
	assert.NoError(t, loopback.Require(kind, "pkg", "10.0.0.5:7070", "10.0.0.5", false, true))
	assert.NoError(t, loopback.Require(kind, "pkg", "127.0.0.1:7070", "127.0.0.1", false, false))
}
