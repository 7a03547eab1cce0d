package codec

import (
	"encoding/json"
	"math"
	"strconv"
)

// jsonCodec is [JSON]: encoding/json, with the integers, floats and
// booleans written and read directly, as encoding/json would write them.
type jsonCodec struct{}

// Append appends the JSON of the value v points to to dst.
func (jsonCodec) Append(dst []byte, v any) ([]byte, error) {
	switch p := v.(type) {
	case *int:
		return strconv.AppendInt(dst, int64(*p), 10), nil
	case *int64:
		return strconv.AppendInt(dst, *p, 10), nil
	case *int32:
		return strconv.AppendInt(dst, int64(*p), 10), nil
	case *uint64:
		return strconv.AppendUint(dst, *p, 10), nil
	case *bool:
		return strconv.AppendBool(dst, *p), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// Decode decodes the JSON data into the value v points to.
func (jsonCodec) Decode(data []byte, v any) error {
	switch p := v.(type) {
	case *int:
		if n, ok := plainInt(data, math.MinInt, math.MaxInt); ok {
			*p = int(n)
			return nil
		}
	case *int64:
		if n, ok := plainInt(data, math.MinInt64, math.MaxInt64); ok {
			*p = n
			return nil
		}
	case *int32:
		if n, ok := plainInt(data, math.MinInt32, math.MaxInt32); ok {
			*p = int32(n)
			return nil
		}
	case *uint64:
		if n, ok := plainUint(data); ok {
			*p = n
			return nil
		}
	case *bool:
		switch string(data) {
		case "true":
			*p = true
			return nil
		case "false":
			*p = false
			return nil
		}
	}
	// Anything else, and encoding/json's errors.
	return json.Unmarshal(data, v)
}

// plainInt reads data as an integer as JSON writes it, an optional minus
// then digits with no leading zero, in one pass, and reports whether it is
// one within lo and hi: anything else is left to encoding/json, which
// reads it, or tells what is wrong with it.
func plainInt(data []byte, lo, hi int64) (int64, bool) {
	neg := len(data) > 0 && data[0] == '-'
	if neg {
		data = data[1:]
	}
	u, ok := plainUint(data)
	switch {
	case !ok:
		return 0, false
	case neg && u <= uint64(-(lo+1))+1:
		return int64(-u), true // two's complement: -u fits, down to lo
	case !neg && u <= uint64(hi):
		return int64(u), true
	}
	return 0, false
}

// plainUint reads data as digits with no leading zero, in one pass, and
// reports whether it is such an integer within a uint64. Up to 19 digits
// cannot overflow; only a 20th is checked.
func plainUint(data []byte) (uint64, bool) {
	if len(data) == 0 || len(data) > 1 && data[0] == '0' || len(data) > 20 {
		return 0, false
	}
	var n uint64
	for _, c := range data[:min(len(data), 19)] {
		d := uint64(c) - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + d
	}
	if len(data) == 20 {
		d := uint64(data[19]) - '0'
		if d > 9 || n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}
