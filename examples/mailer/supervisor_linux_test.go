//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestASupervisorKilledTakesItsChildrenAndARunAfterFinishesTheCampaign
// kills the -state command with SIGKILL part way: its mail server, master
// and workers end with it (Pdeathsig), and a run on the same state then
// sends the rest, killing its master once, and checks exactly once over
// both runs.
func TestASupervisorKilledTakesItsChildrenAndARunAfterFinishesTheCampaign(t *testing.T) {
	skipUnderRace(t)
	state := t.TempDir()
	args := []string{"-state", state, "-n", "2000", "-rate", "1000", "-workers", "2"}
	out, err := os.Create(filepath.Join(t.TempDir(), "out")) // a file, not a pipe that children left running would hold open
	require.NoError(t, err)
	defer out.Close()
	cmd := command(t.Context(), args...)
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	require.Eventually(t, func() bool { return lines(filepath.Join(state, mailJournal)) >= 300 }, time.Minute, 10*time.Millisecond,
		"the mail server took 300 POSTs")
	kids := childrenOf(t, cmd.Process.Pid)
	t.Cleanup(func() { // should the test fail, it leaves no process of its own behind
		for _, pid := range running(kids) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	require.Len(t, kids, 4, "the mail server, the master and 2 workers")
	require.NoError(t, cmd.Process.Kill())
	require.Error(t, cmd.Wait())
	require.Eventually(t, func() bool { return running(kids) == nil }, 5*time.Second, 10*time.Millisecond,
		"children of the killed supervisor still running: %v", running(kids))

	stdout, stderr, code := program(t, append(args, "-kill-master-after", "1000")...)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	m := regexp.MustCompile(`in runs before: (\d+) emails delivered, 0 repeats refused\n`).FindStringSubmatch(stdout)
	require.NotNil(t, m, stdout)
	before, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	assert.GreaterOrEqual(t, before, 300)
	assert.Less(t, before, 1000, "killed part way")
	assert.Regexp(t, `\d+ emails delivered: killed the master \(pid \d+\) with SIGKILL`, stdout)
	assert.Contains(t, stdout, fmt.Sprintf("in this run %d delivered, ", 2000-before))
	assert.Contains(t, stdout, fmt.Sprintf("; in runs before %d delivered, 0 refused\n", before))
	assert.Contains(t, stdout, "exactly once: ok\n")
	assert.Contains(t, stdout, "campaign log:    one receipt per email, 2000 in all: ok\n")
	t.Logf("killed after %d deliveries; the run after:\n%s", before, stdout)
}

// lines returns how many lines the file at path holds; 0 if there is none.
func lines(path string) int {
	data, _ := os.ReadFile(path)
	return bytes.Count(data, []byte("\n"))
}

// childrenOf returns the pids of the processes whose parent is pid.
func childrenOf(t *testing.T, pid int) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	require.NoError(t, err)
	var kids []int
	for _, path := range stats {
		if ppid, _, ok := stat(path); ok && ppid == pid {
			kid, err := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			require.NoError(t, err)
			kids = append(kids, kid)
		}
	}
	return kids
}

// running returns those of pids whose process is still running: neither
// gone nor a zombie, ended and waiting for its new parent to reap it.
func running(pids []int) []int {
	var alive []int
	for _, pid := range pids {
		if _, state, ok := stat(fmt.Sprintf("/proc/%d/stat", pid)); ok && state != "Z" {
			alive = append(alive, pid)
		}
	}
	return alive
}

// stat reads a process's parent and state from its /proc stat file; ok is
// false if the process is gone.
func stat(path string) (ppid int, state string, ok bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, "", false
	}
	_, rest, found := bytes.Cut(data, []byte(") ")) // after the command's name, which may hold spaces
	fields := strings.Fields(string(rest))
	if !found || len(fields) < 2 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(fields[1])
	return ppid, fields[0], err == nil
}
