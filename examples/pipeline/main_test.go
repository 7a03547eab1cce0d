package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// mainEnv, set in a process's environment, makes the test binary run the
// program instead of the tests; the workers a master starts run it too,
// as this binary with -worker first.
const mainEnv = "PIPELINE_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) != "" || (len(os.Args) > 1 && os.Args[1] == "-worker") {
		os.Exit(mainCode(os.Args[1:]))
	}
	goleak.VerifyTestMain(m)
}

// program runs the program in a process of its own with args, and returns
// its stdout, its stderr and its exit status.
func program(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "the program did not end in time\nstdout:\n%s\nstderr:\n%s", &out, &errs)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.String(), errs.String(), exit.ExitCode()
	}
	require.NoError(t, err)
	return out.String(), errs.String(), 0
}

func TestEveryPageReachesTheSinkOnceThroughMovesAndAKilledWorker(t *testing.T) {
	if underRace {
		// protoactor's remote races with itself as a node shuts down while a
		// peer's endpoint goes (the killed worker's), which -race reports
		// and exits 66 for; remote's own tests cover the code under -race.
		t.Skip("a whole run of the program, with a worker killed: it runs without -race")
	}
	out, errs, code := program(t, "-pages", "30", "-big", "2")
	require.Zero(t, code, "stdout:\n%s\nstderr:\n%s", out, errs)
	assert.Contains(t, out, "pipeline: every one of 30 pages reached the sink once, labelled right, after ")
	assert.Regexp(t, `"worker":"cls-1",.*"message":"killed \(SIGKILL\): its jobs go on elsewhere with their state"`, out)
	assert.Contains(t, out, `"message":"remote: an item moved"`, "the master logs the moves")
	assert.Contains(t, out, `"bytes":1310732`, "a page over 1 MB went through")
	assert.Regexp(t, `"path":\["master: fetched","(tok|both)-\d: tokenized",("tok-\d: no model","(cls|both)-\d: )?`, out)
}

func TestAMasterKilledUnderADurableQueueGoesOnFromTheMoves(t *testing.T) {
	if underRace {
		t.Skip("a whole run of the program, with its master killed: it runs without -race")
	}
	out, errs, code := program(t, "-pages", "30", "-big", "1", "-state", t.TempDir(), "-kill-master-after", "12")
	require.Zero(t, code, "stdout:\n%s\nstderr:\n%s", out, errs)
	assert.Contains(t, out, `"message":"the master kills itself (SIGKILL)"`)
	assert.Contains(t, out, "pipeline: the master was killed (SIGKILL) after 12 verdicts; starting it again on ")
	assert.Contains(t, out, "pipeline: every one of 30 pages is in the log once, labelled right; went on from a move recorded before a master was killed: ")
}

func TestBadFlagsAreRefusedByName(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-pages", "0"}, "-pages must be at least 1, got 0"},
		{[]string{"-pages", "3", "-big", "4"}, "-big must be between 0 and -pages (3), got 4"},
		{[]string{"-big-size", "0"}, "-big-size must be between 1 and 3145728 bytes, got 0"},
		{[]string{"-worker", "tokenize"}, "-worker needs -master, the master's address"},
		{[]string{"-worker", "paint", "-master", "127.0.0.1:1"}, `-worker: no kind of worker "paint": tokenize, classify or both`},
		{[]string{"extra"}, `unexpected arguments: ["extra"]`},
		{[]string{"-kill-master-after", "3"}, "-kill-master-after needs -state, the directory of the queue that outlives the master"},
		{[]string{"-state", "d", "-pages", "5", "-kill-master-after", "5"}, "-kill-master-after must be below -pages (5), got 5"},
		{[]string{"-kill-master-after", "-1"}, "-kill-master-after must not be negative, got -1"},
	} {
		var out, errs bytes.Buffer
		err := run(t.Context(), tc.args, &out, &errs)
		var fe *flagError
		require.ErrorAs(t, err, &fe, "%v", tc.args)
		assert.EqualError(t, err, tc.want, "%v", tc.args)
	}
}
