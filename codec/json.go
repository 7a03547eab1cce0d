package codec

import (
	"encoding/json"
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
	if plainInt(data) {
		switch p := v.(type) {
		case *int:
			if n, err := strconv.ParseInt(string(data), 10, strconv.IntSize); err == nil {
				*p = int(n)
				return nil
			}
		case *int64:
			if n, err := strconv.ParseInt(string(data), 10, 64); err == nil {
				*p = n
				return nil
			}
		case *int32:
			if n, err := strconv.ParseInt(string(data), 10, 32); err == nil {
				*p = int32(n)
				return nil
			}
		case *uint64:
			if n, err := strconv.ParseUint(string(data), 10, 64); err == nil {
				*p = n
				return nil
			}
		}
	}
	if p, ok := v.(*bool); ok {
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

// plainInt reports whether data is an integer as JSON writes it: an
// optional minus, then digits with no leading zero.
func plainInt(data []byte) bool {
	digits := data
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 1 && digits[0] == '0' {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
