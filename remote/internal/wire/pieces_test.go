package wire_test

import (
	"testing"

	"github.com/evolvekit/evolve/remote/internal/wire"
	"github.com/stretchr/testify/assert"
)

func TestPiecesCutsByTheSizes(t *testing.T) {
	got, ok := wire.Pieces([]uint32{2, 0, 3}, []byte("42abc"))
	assert.True(t, ok)
	assert.Equal(t, [][]byte{[]byte("42"), {}, []byte("abc")}, got)
	assert.Equal(t, 0, cap(got[0][2:]), "a piece cannot grow into the next")
	_, ok = wire.Pieces([]uint32{2, 4}, []byte("42abc"))
	assert.False(t, ok, "sizes asking for more than there is")
}

func TestFitChecksTheSizes(t *testing.T) {
	assert.True(t, wire.Fit([]uint32{2, 0, 3}, []byte("42abc")))
	assert.True(t, wire.Fit(nil, nil))
	assert.False(t, wire.Fit([]uint32{2, 4}, []byte("42abc")), "sizes asking for more than there is")
	assert.False(t, wire.Fit([]uint32{1 << 31, 1 << 31, 1 << 31}, []byte("42abc")), "sizes whose sum is beyond any int32")
}
