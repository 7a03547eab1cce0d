package moved

import (
	"errors"
	"fmt"
	"testing"

	"github.com/evolvekit/evolve/internal/moves"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadTakesTheHeadersAStateWasWrittenWith(t *testing.T) {
	h := Header("gpu", 3)
	assert.Equal(t, jetstream.MsgRollupSubject, h.Get(jetstream.MsgRollup), "each state replaces the one before")
	s, err := Read(h, []byte("x"))
	require.NoError(t, err)
	assert.Equal(t, State{Header: h, Data: []byte("x"), Tag: "gpu", Moves: 3}, s)
	s, err = Read(Header("", 0), nil)
	require.NoError(t, err)
	assert.Equal(t, "", s.Tag)
	assert.Zero(t, s.Moves)
}

func TestReadRefusesACountOfMovesThatIsNone(t *testing.T) {
	for _, v := range []string{"", "-1", "two", "9999999999999999999999"} {
		h := Header("gpu", 1)
		h.Set(HeaderMoves, v)
		_, err := Read(h, nil)
		require.Error(t, err, "%q", v)
		assert.Contains(t, err.Error(), HeaderMoves, "the error names the header")
	}
}

func TestSubjectNamesTheItemsSequence(t *testing.T) {
	assert.Equal(t, "q.moved.42", Subject("q.moved.", 42))
}

// toTag is a move of work on values, as remote.Move makes one.
type toTag struct {
	tag  string
	next any
}

func (m *toTag) Error() string                  { return "move to " + m.tag }
func (m *toTag) MoveTo() (tag string, next any) { return m.tag, m.next }

// item is what a chain's item wraps a value in, in the tests.
type item struct {
	value int
	tag   string
}

func TestLiftCarriesAMovesNextInputInTheItem(t *testing.T) {
	wrap := func(next int, tag string) any { return item{value: next, tag: tag} }
	err := Lift[int](fmt.Errorf("step 1: %w", &toTag{tag: "b", next: 70}), wrap)
	m, ok := moves.Of(err)
	require.True(t, ok, "still a move")
	tag, next := m.MoveTo()
	assert.Equal(t, "b", tag)
	assert.Equal(t, item{value: 70, tag: "b"}, next, "the next input is the item, with the value it moved with")
	assert.Equal(t, "step 1: move to b", err.Error(), "it says what the move said")
}

func TestLiftLeavesAnErrorThatIsNoMoveOrMovesAnotherType(t *testing.T) {
	wrap := func(next int, tag string) any { t.Fatal("nothing to wrap"); return nil }
	plain := errors.New("boom")
	assert.Same(t, plain, Lift[int](plain, wrap))
	assert.Nil(t, Lift[int](nil, wrap))
	other := &toTag{tag: "b", next: "not an int"}
	assert.Same(t, error(other), Lift[int](other, wrap), "the stage reports the wrong type")
}
