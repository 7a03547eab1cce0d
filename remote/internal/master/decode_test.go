package master

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/evolvekit/evolve/codec"
	"github.com/evolvekit/evolve/remote/internal/book"

	"github.com/evolvekit/evolve/remote/internal/move"
	"github.com/evolvekit/evolve/remote/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
)

// FuzzDecode decodes the fuzzer's bytes as a worker's Outcomes, as the
// master's link does: it must never panic, and what it accepts has
// one outcome per item, each failed one with its error's text.
func FuzzDecode(f *testing.F) {
	ok, err := proto.Marshal(&wire.Outcomes{Worker: 1, Items: []uint64{0, 1}, Attempts: []uint32{1, 1},
		Sizes: []uint32{1, 0}, Values: []byte("7"), Failed: []uint32{1}, Errors: []string{"boom"}, Ask: 2})
	require.NoError(f, err)
	f.Add(ok)
	bad, err := proto.Marshal(&wire.Outcomes{Items: []uint64{0}, Attempts: []uint32{1}, Sizes: []uint32{9}, Values: []byte("7"), Failed: []uint32{5}, Errors: []string{"x"}})
	require.NoError(f, err)
	f.Add(bad)
	moves, err := proto.Marshal(&wire.Outcomes{Worker: 1, Items: []uint64{0, 1, 2}, Attempts: []uint32{1, 1, 2},
		Sizes: []uint32{1, 1, 1}, Values: []byte("789"), Moved: []uint32{0, 2}, Tags: []string{"gpu", ""},
		Steps: []uint32{0, 2, 1}, StepTags: []string{"a", "b", "c"}, Ask: 3})
	require.NoError(f, err)
	f.Add(moves)
	huge, err := proto.Marshal(&wire.Outcomes{Items: []uint64{0}, Attempts: []uint32{1}, Sizes: []uint32{1}, Values: []byte("7"),
		Moved: []uint32{0}, Tags: []string{strings.Repeat("t", move.MaxTag+1)}, Steps: []uint32{9}, StepTags: []string{"a"}})
	require.NoError(f, err)
	f.Add(huge)
	f.Fuzz(func(t *testing.T, data []byte) {
		var m wire.Outcomes
		if proto.Unmarshal(data, &m) != nil {
			return
		}
		out, moves, ok := decode[int, int](&m, nil, codec.JSON.Decode, "w", func(addr, text string) error { return errors.New(text) })
		if !ok {
			return
		}
		require.Len(t, out, len(m.Items)-len(moves), "each item is an outcome or a move")
		for _, o := range out {
			require.Contains(t, m.Items, o.Item)
		}
		steps := 0
		for _, mv := range moves {
			require.Contains(t, m.Items, mv.Item)
			require.LessOrEqual(t, len(mv.Tag), move.MaxTag)
			steps += len(mv.Steps)
		}
		for _, o := range out {
			steps += len(o.Steps)
		}
		require.LessOrEqual(t, steps, len(m.StepTags), "no step made up")
		if len(moves) > 0 {
			return // the failed outcomes' places below count the moves too
		}
		for i, o := range out {
			require.Equal(t, m.Items[i], o.Item)
		}
		for k, i := range m.Failed {
			if int(i) < len(out) && k == len(m.Failed)-1 {
				require.EqualError(t, out[i].Err, m.Errors[k])
			}
		}
	})
}

func TestDecodeTakesTheWorkTimesAWorkerSays(t *testing.T) {
	workError := func(addr, text string) error { return errors.New(text) }
	m := &wire.Outcomes{Items: []uint64{0, 1}, Attempts: []uint32{1, 1}, Sizes: []uint32{1, 1}, Values: []byte("78"),
		Took: []int64{int64(3 * time.Millisecond), -5}}
	out, _, ok := decode[int, int](m, nil, codec.JSON.Decode, "w", workError)
	require.True(t, ok)
	require.Equal(t, 3*time.Millisecond, out[0].Took)
	require.Zero(t, out[1].Took, "a negative time is none")
	m.Took = nil
	out, _, ok = decode[int, int](m, nil, codec.JSON.Decode, "w", workError)
	require.True(t, ok, "a worker that says no times")
	require.Zero(t, out[0].Took)
	m.Took = []int64{1}
	_, _, ok = decode[int, int](m, nil, codec.JSON.Decode, "w", workError)
	require.False(t, ok, "a time for some items only is malformed")
}

func TestDecodeTellsMovesFromOutcomes(t *testing.T) {
	workError := func(addr, text string) error { return errors.New(text) }
	m := &wire.Outcomes{Items: []uint64{0, 1, 2}, Attempts: []uint32{1, 1, 2}, Sizes: []uint32{1, 1, 3}, Values: []byte(`78"x"`),
		Moved: []uint32{0, 2}, Tags: []string{"gpu", "disk"}, Steps: []uint32{0, 2, 0}, StepTags: []string{"a", "b"}}
	out, moves, ok := decode[int, int](m, nil, codec.JSON.Decode, "w", workError)
	require.True(t, ok)
	require.Len(t, moves, 1)
	assert.Equal(t, book.Move[int]{Item: 0, Attempt: 1, Tag: "gpu", Next: 7}, moves[0])
	require.Len(t, out, 2)
	assert.Equal(t, 8, out[0].Value)
	assert.Equal(t, []string{"a", "b"}, out[0].Steps)
	assert.EqualError(t, out[1].Err, `remote: decoding the next input of item 2: json: cannot unmarshal string into Go value of type int`,
		"a next input that does not decode fails the task")

	m.Tags[0] = strings.Repeat("t", move.MaxTag+1)
	_, _, ok = decode[int, int](m, nil, codec.JSON.Decode, "w", workError)
	assert.False(t, ok, "a huge tag is refused")
	m.Tags[0] = "gpu"
	m.Steps = []uint32{0, 3, 0}
	_, _, ok = decode[int, int](m, nil, codec.JSON.Decode, "w", workError)
	assert.False(t, ok, "steps past their tags are refused")
	m.Steps, m.Moved = nil, []uint32{0}
	_, _, ok = decode[int, int](m, nil, codec.JSON.Decode, "w", workError)
	assert.False(t, ok, "a move without its tag is refused")
}
