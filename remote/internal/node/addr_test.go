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

// A host name that does not resolve is refused as such, naming the host,
// rather than as off the loopback: .invalid never resolves (RFC 6761), and
// without a network the look-up fails all the same.
func TestAHostThatDoesNotResolveIsRefusedAsSuch(t *testing.T) {
	_, err := Credentials(nil, false, "127.0.0.1:0", "nosuchhost.invalid:7070")
	require.ErrorIs(t, err, ErrConfig)
	assert.Regexp(t, `^remote: host "nosuchhost\.invalid" of nosuchhost\.invalid:7070 does not resolve: `, err.Error())
	assert.NotContains(t, err.Error(), "off the loopback")

	_, err = Credentials(nil, false, "192.0.2.1:7070")
	assert.ErrorContains(t, err, "192.0.2.1:7070 is off the loopback", "an IP address needs no look-up")
	_, err = Credentials(nil, true, "nosuchhost.invalid:7070")
	assert.NoError(t, err, "with AllowInsecure the rule passes, and the name is looked up as it is dialed")
}
