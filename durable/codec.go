package durable

import "github.com/evolvekit/evolve/internal/jsoncodec"

// Codec turns items into bytes for the queue, and back. Both methods are
// given a pointer to the value; both may be called from several goroutines
// at once. It has the shape of remote.Codec, so one value can serve both.
type Codec interface {
	// Append appends the bytes of the value v points to to dst.
	Append(dst []byte, v any) ([]byte, error)
	// Decode decodes data into the value v points to.
	Decode(data []byte, v any) error
}

// JSON is the default Codec: encoding/json, with integers, floats and
// booleans written and read directly. It is safe for concurrent use.
var JSON Codec = jsoncodec.Codec{}
