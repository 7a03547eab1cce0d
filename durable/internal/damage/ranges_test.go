package damage

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHeld checks what a stream holds, from its first and last sequences
// and those deleted (package seqs tests the sets themselves).
func TestHeld(t *testing.T) {
	assert.Equal(t, Ranges{{First: 1, Last: 2}, {First: 4, Last: 9}}, Held(1, 9, []uint64{3}))
	assert.Equal(t, Ranges{}, Held(5, 4, nil), "an empty stream")
}
