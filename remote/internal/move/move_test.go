package move

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExtendSharesNoMemoryAndStopsAtMost(t *testing.T) {
	a := Extend(nil, 5, "w1", "", "x")
	b := Extend(a, 5, "w2", "y")
	c := Extend(a, 5, "w3", "z")
	assert.Len(t, a, 2)
	assert.Equal(t, Step{Tag: "y", Worker: "w2"}, b[2])
	assert.Equal(t, Step{Tag: "z", Worker: "w3"}, c[2], "two paths from one do not share its array")
	assert.Len(t, Extend(a, 3, "w", make([]string, 1000)...), 3)
	assert.Len(t, Extend(b, 2, "w", "q"), 3, "a path past most keeps its steps")
}

func TestNextNamesBothTypes(t *testing.T) {
	_, err := Next[int](&Request{Tag: "t", Next: nil}, 3)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "of type nil, but the stage's items are of type int")
	v, err := Next[any](&Request{Next: "s"}, 3)
	require.NoError(t, err)
	assert.Equal(t, "s", v)
	assert.Nil(t, Of(assert.AnError))
}

func TestCheckTag(t *testing.T) {
	assert.NoError(t, CheckTag(strings.Repeat("t", MaxTag)))
	assert.ErrorContains(t, CheckTag(strings.Repeat("t", MaxTag+1)), "257 bytes, past 256")
}

// A worker asks Of about every task's error, which is nil for most.
func TestOfNilAllocatesNothing(t *testing.T) {
	assert.Nil(t, Of(nil))
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = Of(nil) }))
}
