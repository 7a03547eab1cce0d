package wire_test

import (
	"testing"

	"github.com/evolvekit/evolve/remote/internal/wire"
	"github.com/stretchr/testify/assert"
)

func TestFitChecksTheSizes(t *testing.T) {
	assert.True(t, wire.Fit([]uint32{2, 0, 3}, []byte("42abc")))
	assert.True(t, wire.Fit(nil, nil))
	assert.False(t, wire.Fit([]uint32{2, 4}, []byte("42abc")), "sizes asking for more than there is")
	assert.False(t, wire.Fit([]uint32{1 << 31, 1 << 31, 1 << 31}, []byte("42abc")), "sizes whose sum is beyond any int32")
}
