package node

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Listening off the loopback would bind a port there: the rule is checked
// here, on the addresses alone.
func TestAllowInsecureLetsANodeOffTheLoopback(t *testing.T) {
	creds, err := Credentials(nil, true, "192.0.2.1:7070", "master.example:7070")
	require.NoError(t, err)
	assert.Nil(t, creds, "no TLS")

	creds, err = Credentials(nil, false, "127.0.0.1:0", "127.0.0.2:7070", "[::1]:7070", "localhost:7070")
	require.NoError(t, err, "the loopback needs neither")
	assert.Nil(t, creds)

	_, err = Credentials(nil, false, "127.0.0.1:0", "192.0.2.1:7070")
	assert.ErrorIs(t, err, ErrConfig, "every address counts")
	_, err = Credentials(nil, true, "0.0.0.0:7070")
	assert.ErrorContains(t, err, "must name a host", "a host to answer at, whatever the security")
}

func TestAnAdvertisedAddressNamesAHostAndAPort(t *testing.T) {
	assert.NoError(t, advertisable(""))
	assert.NoError(t, advertisable("10.0.0.7:7071"))
	for _, bad := range []string{"10.0.0.7", "0.0.0.0:7071", ":7071", "10.0.0.7:0", "10.0.0.7:x"} {
		assert.ErrorIs(t, advertisable(bad), ErrConfig, bad)
	}
}
