// Package codec turns the items that cross between processes into bytes and
// back: the items and results a remote stage sends its workers, and the
// items of a durable queue (from the package example):
//
//	data, err := codec.JSON.Append(nil, &in)
//	err = codec.JSON.Decode(data, &out)
//
// Both take a [Codec] in their settings, [JSON] unless told otherwise, and
// one value serves both. The two ends of a wire or a queue must use the
// same one.
package codec
