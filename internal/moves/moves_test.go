package moves

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

type move struct{ tag string }

func (m *move) Error() string                  { return "move to " + m.tag }
func (m *move) MoveTo() (tag string, next any) { return m.tag, 1 }

func TestOfFindsAMoveWrappedOrNot(t *testing.T) {
	m, ok := Of(fmt.Errorf("step 2: %w", &move{"gpu"}))
	assert.True(t, ok)
	tag, next := m.MoveTo()
	assert.Equal(t, "gpu", tag)
	assert.Equal(t, 1, next)
	_, ok = Of(errors.New("boom"))
	assert.False(t, ok)
	_, ok = Of(nil)
	assert.False(t, ok)
}

func TestPathNamesTheLastFewTags(t *testing.T) {
	assert.Equal(t, `"a" → "b"`, Path([]string{"a", "b"}))
	assert.Equal(t, `... → "2" → "3" → "4" → "5" → "6" → "7" → "8" → "9"`, Path([]string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}))
	assert.Equal(t, "nil", TypeName(nil))
	assert.Equal(t, "[]int", TypeName([]int{}))
}
