//go:build !linux

package fleet

import "os/exec"

// dieWithParent does nothing: only Linux has Pdeathsig. Here the children
// of a supervisor or master killed with SIGKILL outlive it, and are to be
// ended by hand.
func dieWithParent(*exec.Cmd) {}
