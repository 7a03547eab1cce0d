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

// Fit reports whether values, the bytes of several values laid end to end,
// holds at least the bytes of each size in sizes, as Pieces would cut them.
func Fit(sizes []uint32, values []byte) bool {
	var total uint64
	for _, size := range sizes {
		total += uint64(size)
		if total > uint64(len(values)) {
			return false
		}
	}
	return true
}
