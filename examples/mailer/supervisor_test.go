package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/examples/mailer/internal/ndjson"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAMasterKilledMidwayGoesOnFromItsQueueAndEveryEmailIsDeliveredOnce(t *testing.T) {
	skipUnderRace(t)
	state := t.TempDir()
	out, errs, code := program(t, "-state", state, "-n", "1000", "-rate", "2000", "-workers", "2", "-kill-master-after", "300", "-metrics", "127.0.0.1:0")
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errs)
	m := regexp.MustCompile(`(\d+) emails delivered: killed the master \(pid \d+\) with SIGKILL`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	killedAt, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	assert.GreaterOrEqual(t, killedAt, 300)
	assert.Less(t, killedAt, 1000, "killed before the end")
	assert.Len(t, regexp.MustCompile(`master \(pid \d+\) at `).FindAllString(out, -1), 2, "started twice")
	assert.Contains(t, out, "mail server:     1000 emails delivered, ")
	assert.Contains(t, out, "exactly once: ok\n")
	assert.Contains(t, out, "campaign log:    one receipt per email, 1000 in all: ok\n")
	assert.Len(t, regexp.MustCompile(`master \(pid \d+\): the agents' metrics are at http://127\.0\.0\.1:\d+/metrics`).FindAllString(out, -1), 2,
		"each master serves its metrics")
	t.Logf("master killed after %d deliveries\n%s", killedAt, out)
}

// TestAFinishedCampaignRunAgainEndsAtOnceAndReportsEveryRun runs the
// -state command to the end, then twice again on the same state, with
// -kill-master-after and without: each run after ends at once, starting
// no master, and reports the campaign log's receipts and what the mail
// server received in the first run, checked exactly once.
func TestAFinishedCampaignRunAgainEndsAtOnceAndReportsEveryRun(t *testing.T) {
	skipUnderRace(t)
	state := t.TempDir()
	args := []string{"-state", state, "-n", "1000", "-rate", "4000", "-workers", "2"}
	out, errs, code := program(t, append(args, "-kill-master-after", "300")...)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errs)
	m := regexp.MustCompile(`1000 emails delivered, (\d+) repeats refused`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	for _, again := range [][]string{append(args, "-kill-master-after", "300"), args} {
		start := time.Now()
		out, errs, code := program(t, again...)
		took := time.Since(start)
		require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errs)
		assert.Less(t, took, 10*time.Second, "it sends nothing")
		assert.Contains(t, out, "in runs before: 1000 emails delivered, "+m[1]+" repeats refused\n")
		assert.Contains(t, out, "mailer: the campaign in "+state+" was done already: its queue is empty; nothing to send\n")
		assert.NotContains(t, out, "master (pid")
		assert.Contains(t, out, "mail server:     1000 emails delivered, "+m[1]+" repeats refused")
		assert.Contains(t, out, "in this run 0 delivered, 0 refused; in runs before 1000 delivered, "+m[1]+" refused\n")
		assert.Contains(t, out, "exactly once: ok\n")
		assert.Contains(t, out, "campaign log:    one receipt per email, 1000 in all: ok\n")
		t.Logf("run again in %v:\n%s", took.Round(time.Millisecond), out)
	}
}

// TestTheStateLogKeepsOneReceiptPerEmail opens a campaign log that a
// crash left with a line cut short: the line is cut off, and receipts of
// emails already in the log are left out of later batches.
func TestTheStateLogKeepsOneReceiptPerEmail(t *testing.T) {
	path := filepath.Join(t.TempDir(), stateLog)
	require.NoError(t, os.WriteFile(path, []byte(`{"id":"<1@x>","worker":"w1","outcome":"delivered"}`+"\n"+`{"id":"<2@x>","wor`), 0o644))
	l, err := openAppendLog(path)
	require.NoError(t, err)
	batch := []durable.Item[receipt]{{Value: receipt{ID: "<1@x>", Worker: "w2", Outcome: "already-delivered"}}, {Value: receipt{ID: "<2@x>", Worker: "w2", Outcome: "delivered"}}}
	require.NoError(t, l.write(batch))
	require.NoError(t, l.write(batch))
	got, err := ndjson.Read[receipt]("campaign log", path)
	require.NoError(t, err)
	assert.Equal(t, []receipt{{ID: "<1@x>", Worker: "w1", Outcome: "delivered"}, {ID: "<2@x>", Worker: "w2", Outcome: "delivered"}}, got)
	assert.Equal(t, 1, l.written)
	assert.Equal(t, 3, l.repeats)
}
