package wire

// Fit reports whether values, the bytes of several values laid end to end,
// holds at least the bytes of each size in sizes, in order: a message whose
// sizes ask for more is one no peer of this package sends.
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
