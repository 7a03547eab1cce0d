package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// binary is the typewriter built once for the tests that run it on a
// pseudo-terminal; panicky is the same with the key ¤ panicking in the
// display (panic_hook.go).
var binary, panicky string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "typewriter-test-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary, panicky = filepath.Join(dir, "typewriter"), filepath.Join(dir, "typewriter-panicky")
	for _, build := range [][]string{{"-o", binary}, {"-tags", "typewriter_panic", "-o", panicky}} {
		cmd := exec.Command("go", append(append([]string{"build"}, build...), ".")...)
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building the typewriter: %v\n%s", err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { os.RemoveAll(dir) }))
}
