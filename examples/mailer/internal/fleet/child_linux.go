//go:build linux

package fleet

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill the process cmd starts with SIGKILL
// once the thread that started it ends (see Start), so that a
// supervisor or master killed with SIGKILL, which runs no code of its own
// to end them, takes its children with it. A process group would not do:
// its members die when someone signals the group (a terminal's Ctrl-C),
// not when its leader dies.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
