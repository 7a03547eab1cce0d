package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// supervise runs the master as a process of its own on cfg.state, told to
// kill itself once cfg.killMasterAfter verdicts are in, then starts it
// again on the same directory to finish: the second run checks that every
// page is in the log once, labelled right.
func supervise(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this program to start the master: %w", err)
	}
	args := []string{"-role", "master", "-state", cfg.state, "-pages", strconv.Itoa(cfg.pages),
		"-big", strconv.Itoa(cfg.big), "-big-size", strconv.Itoa(cfg.bigSize)}
	first := exec.CommandContext(ctx, exe, append(args, "-kill-after", strconv.Itoa(cfg.killMasterAfter))...)
	first.Stdout, first.Stderr = stdout, stderr
	err = first.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		return fmt.Errorf("the first master was to be killed after %d verdicts, but it ended: %v", cfg.killMasterAfter, err)
	}
	fmt.Fprintf(stdout, "pipeline: the master was killed (SIGKILL) after %d verdicts; starting it again on %s\n", cfg.killMasterAfter, cfg.state)
	again := exec.CommandContext(ctx, exe, args...)
	again.Stdout, again.Stderr = stdout, stderr
	if err := again.Run(); err != nil {
		return fmt.Errorf("the master started again: %w", err)
	}
	return nil
}
