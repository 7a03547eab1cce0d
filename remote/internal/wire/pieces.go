package wire

// Pieces cuts values, the bytes of several values laid end to end, into
// the value of each size in sizes, in order. It reports false when sizes
// ask for more bytes than values hold: a message no peer of this package
// sends.
func Pieces(sizes []uint32, values []byte) ([][]byte, bool) {
	out := make([][]byte, len(sizes))
	off := 0
	for i, size := range sizes {
		end := off + int(size)
		if end > len(values) {
			return nil, false
		}
		out[i] = values[off:end:end]
		off = end
	}
	return out, true
}
