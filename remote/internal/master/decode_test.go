package master

import (
	"errors"
	"testing"
	"time"

	"github.com/evolvekit/evolve/codec"

	"github.com/evolvekit/evolve/remote/internal/wire"
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
	f.Fuzz(func(t *testing.T, data []byte) {
		var m wire.Outcomes
		if proto.Unmarshal(data, &m) != nil {
			return
		}
		out, _, ok := decode[int, int](&m, codec.JSON.Decode, "w", func(addr, text string) error { return errors.New(text) })
		if !ok {
			return
		}
		require.Len(t, out, len(m.Items))
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
	out, _, ok := decode[int, int](m, codec.JSON.Decode, "w", workError)
	require.True(t, ok)
	require.Equal(t, 3*time.Millisecond, out[0].Took)
	require.Zero(t, out[1].Took, "a negative time is none")
	m.Took = nil
	out, _, ok = decode[int, int](m, codec.JSON.Decode, "w", workError)
	require.True(t, ok, "a worker that says no times")
	require.Zero(t, out[0].Took)
	m.Took = []int64{1}
	_, _, ok = decode[int, int](m, codec.JSON.Decode, "w", workError)
	require.False(t, ok, "a time for some items only is malformed")
}
