package codec

// Codec turns values into bytes, and back. Both methods are given a
// pointer to the value, so that a value need not be copied to the heap to
// be passed; both may be called from several goroutines at once. The two
// ends of a wire or a queue must use the same one.
type Codec interface {
	// Append appends the bytes of the value v points to to dst.
	Append(dst []byte, v any) ([]byte, error)
	// Decode decodes data into the value v points to.
	Decode(data []byte, v any) error
}

// JSON is the default Codec: encoding/json, with the integers, floats and
// booleans written and read directly, as encoding/json would write them,
// since tiny items are common and a round trip through reflection costs
// more than the rest of their trip. It is safe for concurrent use.
var JSON Codec = jsonCodec{}
