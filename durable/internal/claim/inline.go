package claim

import "fmt"

// DefaultInline is the most bytes an item carries in its message, by
// default: a megabyte, NATS's default max payload, less room for its
// headers.
const DefaultInline = 1<<20 - 8<<10

// Inline returns the most bytes an item may carry in its message on
// servers that take messages of at most maxPayload bytes, headers
// included: set, if not 0, or DefaultInline, or less if the servers take
// less, keeping an eighth of their max payload, at most 8 KiB, for the
// headers. It returns an error for a set that leaves the headers no room.
func Inline(maxPayload int64, set int) (int, error) {
	most := maxPayload - min(8<<10, maxPayload/8)
	if set == 0 {
		return int(max(1, min(most, DefaultInline))), nil
	}
	if int64(set) > most {
		return 0, fmt.Errorf("max inline %d bytes leaves the headers no room in a message: the servers take %d bytes at most, and %d of them are kept for headers", set, maxPayload, maxPayload-most)
	}
	return set, nil
}
