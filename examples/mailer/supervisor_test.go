package main

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAMasterKilledMidwayGoesOnFromItsQueueAndEveryEmailIsDeliveredOnce(t *testing.T) {
	state := t.TempDir()
	out, errs, code := program(t, "-state", state, "-n", "1000", "-rate", "2000", "-workers", "2", "-kill-master-after", "300")
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
	t.Logf("master killed after %d deliveries\n%s", killedAt, out)
}
