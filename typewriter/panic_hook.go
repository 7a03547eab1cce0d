//go:build typewriter_panic

package main

import tea "github.com/charmbracelet/bubbletea"

// In a build with the typewriter_panic tag, the key ¤ panics in the display,
// so the tests can see the terminal restored after a panic.
func init() {
	keyHook = func(k tea.KeyMsg) {
		if k.Type == tea.KeyRunes && string(k.Runes) == "¤" {
			panic("¤ pressed")
		}
	}
}
