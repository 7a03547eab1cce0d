package remote

import (
	"github.com/evolvekit/evolve/codec"
	"testing"

	"github.com/evolvekit/evolve/remote/internal/wire"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
)

// FuzzDecodeResults decodes the fuzzer's bytes as a worker's Results, as
// the master's link does: it must never panic, and what it accepts has
// one outcome per item, each failed one with its error's text.
func FuzzDecodeResults(f *testing.F) {
	ok, err := proto.Marshal(&wire.Results{Worker: 1, Items: []uint64{0, 1}, Attempts: []uint32{1, 1},
		Sizes: []uint32{1, 0}, Values: []byte("7"), Failed: []uint32{1}, Errors: []string{"boom"}, Ask: 2})
	require.NoError(f, err)
	f.Add(ok)
	bad, err := proto.Marshal(&wire.Results{Items: []uint64{0}, Attempts: []uint32{1}, Sizes: []uint32{9}, Values: []byte("7"), Failed: []uint32{5}, Errors: []string{"x"}})
	require.NoError(f, err)
	f.Add(bad)
	f.Fuzz(func(t *testing.T, data []byte) {
		var m wire.Results
		if proto.Unmarshal(data, &m) != nil {
			return
		}
		out, ok := decodeResults[int](&m, codec.JSON, "w")
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
