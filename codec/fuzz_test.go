package codec_test

import (
	"encoding/json"
	"testing"

	"github.com/evolvekit/evolve/codec"
)

// FuzzDecode decodes any bytes, as they come from the wire or a queue,
// into the values the fast paths serve and into a struct: the codec never
// panics, agrees with encoding/json on whether the bytes are valid for the
// type, decodes to what encoding/json decodes, and what it decodes
// encodes back to bytes that decode to the same value.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{"0", "-1", "007", "12345678901234567890", "true", "false", "null", `"x"`, `{"Key":"k","Value":3,"Ticket":9}`, "1e3", "-", ""} {
		f.Add([]byte(s))
	}
	c := codec.JSON
	f.Fuzz(func(t *testing.T, data []byte) {
		check(t, c, data, new(int), new(int))
		check(t, c, data, new(int64), new(int64))
		check(t, c, data, new(int32), new(int32))
		check(t, c, data, new(uint64), new(uint64))
		check(t, c, data, new(bool), new(bool))
		type item struct {
			Key    string
			Value  int
			Ticket uint64
		}
		check(t, c, data, new(item), new(item))
	})
}

// check decodes data into got with the codec and into want with
// encoding/json, and compares.
func check[T comparable](t *testing.T, c codec.Codec, data []byte, got, want *T) {
	t.Helper()
	err := c.Decode(data, got)
	jerr := json.Unmarshal(data, want)
	if (err == nil) != (jerr == nil) {
		t.Fatalf("%q into %T: codec error %v, encoding/json error %v", data, got, err, jerr)
	}
	if err != nil {
		return
	}
	if *got != *want {
		t.Fatalf("%q into %T: codec %v, encoding/json %v", data, got, *got, *want)
	}
	out, err := c.Append(nil, got)
	if err != nil {
		t.Fatalf("encoding %v: %v", *got, err)
	}
	var back T
	if err := c.Decode(out, &back); err != nil || back != *got {
		t.Fatalf("%v encodes to %q, which decodes to %v, %v", *got, out, back, err)
	}
}
