package main

import (
	"fmt"
	"io"
)

// summary prints the line that ends a run that drained: how many keys went
// into how many lines of which file.
func summary(w io.Writer, keys, lines int, path string) {
	fmt.Fprintf(w, "typewriter: %s in %s in %s\n", plural(keys, "key"), plural(lines, "line"), path)
}

// plural writes n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
