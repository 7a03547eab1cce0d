package codec_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/evolvekit/evolve/codec"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// roundTrip checks that JSON writes v as encoding/json does and reads it
// back.
func roundTrip[T any](t *testing.T, v T) {
	t.Helper()
	got, err := codec.JSON.Append([]byte("prefix"), &v)
	require.NoError(t, err)
	want, err := json.Marshal(v)
	require.NoError(t, err)
	assert.Equal(t, "prefix"+string(want), string(got))
	var back T
	require.NoError(t, codec.JSON.Decode(got[len("prefix"):], &back))
	assert.Equal(t, v, back)
}

func TestJSONWritesAsEncodingJSONAndReadsBack(t *testing.T) {
	roundTrip(t, 0)
	roundTrip(t, -42)
	roundTrip(t, math.MaxInt)
	roundTrip(t, int64(math.MinInt64))
	roundTrip(t, int32(7))
	roundTrip(t, uint64(math.MaxUint64))
	roundTrip(t, true)
	roundTrip(t, false)
	roundTrip(t, 2.5)
	roundTrip(t, "a \"quoted\" <string>")
	roundTrip(t, struct {
		V      int
		Worker string
	}{V: 3, Worker: "w"})
}

func TestJSONReadsWhatEncodingJSONReads(t *testing.T) {
	for _, text := range []string{"1e3", "+5", "007", "-", "", "x", "1.5", "99999999999999999999", " 1"} {
		var n, m int
		got := codec.JSON.Decode([]byte(text), &n)
		want := json.Unmarshal([]byte(text), &m)
		assert.Equal(t, want == nil, got == nil, "%q into an int", text)
		assert.Equal(t, m, n, "%q into an int", text)
	}
	for _, text := range []string{"1", "t", "T", "True", "TRUE", "0", "f", "null"} {
		var b, c bool
		got := codec.JSON.Decode([]byte(text), &b)
		want := json.Unmarshal([]byte(text), &c)
		assert.Equal(t, want == nil, got == nil, "%q into a bool", text)
		assert.Equal(t, c, b, "%q into a bool", text)
	}
}
