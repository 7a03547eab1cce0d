package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// watchFor is a writer, safe for concurrent use, that keeps what is
// written, and sends on found the first match of re in it.
type watchFor struct {
	re    *regexp.Regexp
	found chan []string

	mu   sync.Mutex
	buf  bytes.Buffer
	sent bool
}

// newWatchFor returns a watchFor of the regular expression re.
func newWatchFor(re string) *watchFor {
	return &watchFor{re: regexp.MustCompile(re), found: make(chan []string, 1)}
}

// Write keeps p, and sends the first match on found.
func (w *watchFor) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if m := w.re.FindStringSubmatch(w.buf.String()); m != nil && !w.sent {
		w.sent = true
		w.found <- m
	}
	return len(p), nil
}

// String returns what was written.
func (w *watchFor) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// fleetTimeout bounds a test of a fleet: its loads end within it, or are
// cancelled and fail.
const fleetTimeout = 20 * time.Second

// serve runs the serving warehouse with args in a goroutine, and returns
// the URLs of its queue and its API, as it prints them for its joiners,
// and its output; it sends what run returned on done.
func serve(ctx context.Context, t *testing.T, args []string, done chan<- error) (queue, api string, out *watchFor) {
	t.Helper()
	out = newWatchFor(`join with: warehouse -join (\S+) -api (\S+)`)
	ended := make(chan error, 1)
	go func() {
		err := run(ctx, args, out, io.Discard)
		ended <- err
		done <- err
	}()
	select {
	case m := <-out.found:
		return m[1], m[2], out
	case err := <-ended:
		t.Fatalf("the serving warehouse ended before it served: %v\n%s", err, out)
	}
	return "", "", nil
}

// TestAFleetLoadsEveryRecordOnceWithinOneRate runs three warehouses in
// this process, as three would run on one machine: one serves its queue
// and its API, two join them, one into -state, one into -out. A joiner at
// another -rate is refused. Together they load every record once, each a
// share, the API sees no more than the one -rate and no 429, and the check
// of the three directories finds every id once.
func TestAFleetLoadsEveryRecordOnceWithinOneRate(t *testing.T) {
	skipUnderRace(t)
	ctx, cancel := context.WithTimeout(t.Context(), fleetTimeout)
	defer cancel()
	const records, rate = 3000, 1000.0
	dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	common := []string{"-rate", fmt.Sprint(rate), "-batch", "50"}
	done := make(chan error, 3)
	queue, api, served := serve(ctx, t, append([]string{"-records", fmt.Sprint(records), "-fail", "0", "-state", dirs[0], "-listen", "127.0.0.1:0"}, common...), done)
	joining := []string{"-join", queue, "-api", api}

	err := run(ctx, append(joining, "-rate", "400", "-out", t.TempDir()), io.Discard, io.Discard)
	require.ErrorContains(t, err, "-rate: every process on a queue must pass the same -rate: durable: limit api is 1000 a second")
	assert.Equal(t, 2, exitCode(err, io.Discard))

	outs := []*watchFor{served, newWatchFor("^$"), newWatchFor("^$")}
	for i, where := range [][]string{{"-state", dirs[1]}, {"-out", dirs[2]}} {
		go func() { done <- run(ctx, append(append(joining, where...), common...), outs[i+1], io.Discard) }()
	}
	for range 3 {
		require.NoError(t, <-done, "%s\n%s\n%s", outs[0], outs[1], outs[2])
	}
	text := served.String()
	assert.Contains(t, text, "warehouse: 2 joiners came and left; closing the queue")
	assert.Contains(t, text, fmt.Sprintf("the API:         %d requests, %d records served, 0 429s and 0 5xx answered\n", records, records))
	bound := int(rate) + loaderBurst(rate) // burst + rate·t, for t = 1 s
	assert.LessOrEqual(t, figure(t, text, "busiest second"), bound, "the three together, within one rate")
	assert.GreaterOrEqual(t, elapsed(t, text), time.Duration(float64(records-loaderBurst(rate))/rate*float64(time.Second)),
		"the last record cannot go before the one rate lets it")
	for i := 1; i <= 2; i++ {
		assert.Contains(t, outs[i].String(), "check:           ", "each checks its own files")
		assert.Zero(t, figure(t, outs[i].String(), "429s received"))
	}

	check := checkFleet(ctx, t, records, dirs, outs)
	assert.Contains(t, check, "; 0 loaded more than once (-rework 0)\n")
	t.Logf("records per process: %d, %d and %d; busiest second at the API: %d (bound %d); %v",
		figure(t, text, "records loaded"), figure(t, outs[1].String(), "records loaded"), figure(t, outs[2].String(), "records loaded"),
		figure(t, text, "busiest second"), bound, elapsed(t, text))
}

// checkFleet runs `warehouse check` on the directories of a fleet's
// processes, whose outputs are outs, and checks that it passes, that each
// process loaded some records, the number the check finds in its
// directory, and that they add up to every record once. It returns what
// the check printed.
func checkFleet(ctx context.Context, t *testing.T, records int, dirs []string, outs []*watchFor) string {
	t.Helper()
	var check bytes.Buffer
	require.NoError(t, run(ctx, append([]string{"check", "-records", fmt.Sprint(records)}, dirs...), &check, io.Discard), check.String())
	sum := 0
	for i, dir := range dirs {
		n := figure(t, outs[i].String(), "records loaded")
		assert.Positive(t, n, "process %d loaded a share", i)
		assert.Regexp(t, fmt.Sprintf(`(?m)^%s: %d records in \d+ files$`, regexp.QuoteMeta(dir), n), check.String())
		sum += n
	}
	assert.Equal(t, records, sum, "every record once, among them")
	assert.Contains(t, check.String(), fmt.Sprintf("check: every id from 1 to %d is in the ", records))
	return check.String()
}

// TestAFleetOverMutualTLS serves the queue with a certificate of a CA made
// for the test, joined by a warehouse with another certificate of that CA:
// together they load every record. A joiner whose certificate another CA
// signed is refused.
func TestAFleetOverMutualTLS(t *testing.T) {
	skipUnderRace(t)
	ctx, cancel := context.WithTimeout(t.Context(), fleetTimeout)
	defer cancel()
	const records = 1000
	ca, other := newTestCA(t), newTestCA(t)
	dirs := []string{t.TempDir(), t.TempDir()}
	done := make(chan error, 2)
	queue, api, served := serve(ctx, t, append([]string{"-records", fmt.Sprint(records), "-rate", "1000", "-fail", "0",
		"-state", dirs[0], "-listen", "127.0.0.1:0"}, ca.files(t)...), done)
	assert.True(t, strings.HasPrefix(queue, "tls://127.0.0.1:"), queue)
	assert.Contains(t, served.String(), " -tls-ca CA -tls-cert CERT -tls-key KEY (a certificate CA signed)\n")
	joining := []string{"-join", queue, "-api", api, "-rate", "1000"}

	err := joinWithin(ctx, t, 0, append(append(joining, "-out", t.TempDir()), other.files(t)...)...)
	require.ErrorContains(t, err, "no warehouse serves a queue there", "a certificate of another CA")

	joined := newWatchFor("^$")
	go func() {
		done <- run(ctx, append(append(joining, "-state", dirs[1]), ca.files(t)...), joined, io.Discard)
	}()
	for range 2 {
		require.NoError(t, <-done, "%s\n%s", served, joined)
	}
	assert.Contains(t, served.String(), "warehouse: 1 joiner came and left; closing the queue")
	checkFleet(ctx, t, records, dirs, []*watchFor{served, joined})
}

// joinWithin runs a joiner with args, as run does, but waiting for the
// queue to come up no longer than wait.
func joinWithin(ctx context.Context, t *testing.T, wait time.Duration, args ...string) error {
	t.Helper()
	cfg, err := parseFlags(args, nil)
	require.NoError(t, err)
	cfg.joinWait = wait
	return warehouse(ctx, cfg, faults{}, io.Discard, io.Discard)
}

// TestAJoinerWithNothingToJoinSaysSo joins a port where nothing listens:
// the joiner waits for a warehouse to serve there, then gives up.
func TestAJoinerWithNothingToJoinSaysSo(t *testing.T) {
	start := time.Now()
	err := joinWithin(t.Context(), t, 300*time.Millisecond, "-join", "nats://127.0.0.1:1", "-api", "http://127.0.0.1:1", "-out", t.TempDir())
	require.ErrorContains(t, err, "-join nats://127.0.0.1:1: no warehouse serves a queue there after 300ms: start one with -state DIR -listen ADDR")
	assert.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond)
	assert.Equal(t, 1, exitCode(err, io.Discard))
}
