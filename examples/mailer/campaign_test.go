//go:build !race

// The tests in this file run protoactor remote for real: a master in the
// test, and worker processes (the test binary again, see TestMain). They do
// not run under the race detector: protoactor's remote writes fields
// without a lock as it starts and shuts down (grpclog's logger in Start;
// the endpoint manager's state in Shutdown, while a lost connection is
// being handled), which the detector reports in any program that starts
// and stops it. The remote stage's own bookkeeping is tested under -race
// in package remote.

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/examples/mailer/internal/mailserver"
	"github.com/evolvekit/evolve/internal/testing/certs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// figure returns the number printed after label, as in "requeued:   8".
func figure(t *testing.T, out, label string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(label) + `:\s+(\d+)`).FindStringSubmatch(out)
	require.NotNil(t, m, "%q in:\n%s", label, out)
	n, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	return n
}

// row is one line of the report's table by worker.
type row struct {
	name                         string
	receipts, delivered, refused int
	ended                        string
}

// rows reads the report's table by worker.
func rows(t *testing.T, out string) map[string]row {
	t.Helper()
	re := regexp.MustCompile(`(?m)^  (\S+)(?: \(pid \d+\))?\s+(\d+)\s+(\d+)\s+(\d+)  (.+)$`)
	got := make(map[string]row)
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		r := row{name: m[1], ended: m[5]}
		r.receipts, _ = strconv.Atoi(m[2])
		r.delivered, _ = strconv.Atoi(m[3])
		r.refused, _ = strconv.Atoi(m[4])
		got[r.name] = r
	}
	return got
}

// mailLine reads the mail server's line: POSTs, delivered, refused.
func mailLine(t *testing.T, out string) (posts, delivered, refused int) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^mail server:\s+(\d+) POSTs for \d+ emails: (\d+) delivered, (\d+) refused`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	posts, _ = strconv.Atoi(m[1])
	delivered, _ = strconv.Atoi(m[2])
	refused, _ = strconv.Atoi(m[3])
	return posts, delivered, refused
}

// readReceipts reads the campaign log on its own: the receipts by
// Message-ID, and how many say already-delivered.
func readReceipts(t *testing.T, path string) (byID map[string]int, repeats int) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	byID = make(map[string]int)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		m := regexp.MustCompile(`^\{"id":"(<\d+\.spring-sale@mailer\.example>)","worker":"\w+","outcome":"(delivered|already-delivered)"\}$`).FindStringSubmatch(line)
		require.NotNil(t, m, line)
		byID[m[1]]++
		if m[2] == mailserver.Repeat {
			repeats++
		}
	}
	return byID, repeats
}

func TestAKilledWorkerLosesNoEmailAndTheRepeatIsRefused(t *testing.T) {
	const n = 3000
	logPath := filepath.Join(t.TempDir(), "campaign.ndjson")
	var out, progress bytes.Buffer
	args := []string{"-n", strconv.Itoa(n), "-rate", "20000", "-kill-after", "1000", "-join-after", "1500", "-log", logPath}
	start := time.Now()
	require.NoError(t, run(t.Context(), args, &out, &progress), progress.String())
	text := out.String()
	t.Logf("%v\n%s", time.Since(start), text)

	assert.Contains(t, text, "emails sent:        3000 of 3000, a receipt each in the campaign log")
	assert.Regexp(t, `(?m)^mailer: \d+ emails delivered: killed worker w1 \(pid \d+\) with SIGKILL as the mail server took <\d+\.spring-sale@mailer\.example> from it$`, text)
	assert.Regexp(t, `(?m)^mailer: \d+ emails delivered: started worker w4 \(pid \d+\)$`, text)

	byWorker := rows(t, text)
	require.Len(t, byWorker, 4, text)
	assert.Equal(t, "killed (SIGKILL)", byWorker["w1"].ended)
	for _, w := range []string{"w2", "w3", "w4"} {
		assert.Equal(t, "finished", byWorker[w].ended, "%s ends cleanly once the campaign has finished", w)
	}
	assert.Positive(t, byWorker["w4"].receipts, "the worker that joined got its share")
	assert.Zero(t, byWorker["w1"].refused, "nothing w1 sent was a repeat: it died first")

	posts, delivered, refused := mailLine(t, text)
	assert.Equal(t, n, delivered)
	assert.Equal(t, n+refused, posts)
	sum := row{}
	for _, r := range byWorker {
		sum.receipts += r.receipts
		sum.delivered += r.delivered
		sum.refused += r.refused
	}
	assert.Equal(t, row{receipts: n, delivered: n, refused: refused}, sum, "the table adds up")

	requeued, retried := figure(t, text, "requeued"), figure(t, text, "retried")
	assert.Positive(t, requeued, "w1's emails were requeued")
	assert.LessOrEqual(t, requeued, 16, "no more than w1's slots and its prefetch, as many by default")
	assert.Positive(t, refused, "the email w1 was killed sending was delivered, sent again, and refused")
	assert.LessOrEqual(t, refused, requeued+retried, "only an email tried again can be a repeat")
	assert.LessOrEqual(t, figure(t, text, "duplicates dropped"), refused,
		"a result dropped as a duplicate comes from a second send of its email, which the mail server refused")
	assert.Less(t, byWorker["w1"].receipts, byWorker["w1"].delivered, "w1 delivered emails it never reported")

	byID, repeats := readReceipts(t, logPath)
	require.Len(t, byID, n)
	for i := 1; i <= n; i++ {
		require.Equal(t, 1, byID[messageID(i)], "email %d has one receipt", i)
	}
	assert.LessOrEqual(t, repeats, refused)
	assert.Contains(t, text, "check:              every email of 3000 was delivered by the mail server exactly once: ok\n")
	assert.Contains(t, text, "                    but sent at least once, not exactly once: "+strconv.Itoa(posts)+" POSTs for 3000 emails; the mail server's dedupe by Message-ID refused the "+strconv.Itoa(refused)+" repeats\n")
	assert.Contains(t, text, "                    one receipt per email in the campaign log: ok ("+strconv.Itoa(repeats)+" of them say already-delivered)\n")
}

// watched is a writer safe for concurrent use that reports when what was
// written contains a pattern.
type watched struct {
	mu  sync.Mutex
	buf bytes.Buffer
	re  *regexp.Regexp
	hit chan []string // the pattern's first match, once
}

// Write writes p, and sends the match once the text matches.
func (w *watched) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if w.re != nil {
		if m := w.re.FindStringSubmatch(w.buf.String()); m != nil {
			w.hit <- m
			w.re = nil
		}
	}
	return n, err
}

// String returns what was written.
func (w *watched) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// With -autoscale the master starts MIN workers and follows what the
// stage wants: a campaign the one worker cannot keep up with (the rate
// allows fifty times what its slot sends) starts more, each said in a line,
// and once it has finished, the stage wants none and they are stopped.
func TestAnAutoscaledCampaignGrowsItsWorkersThenStopsThem(t *testing.T) {
	const n = 4000
	logPath := filepath.Join(t.TempDir(), "campaign.ndjson")
	var out, progress bytes.Buffer
	// One slot sends about 350 emails a second: the run lasts some 11 s,
	// and the stage's first want comes after about 6 (its λ's moving
	// average has to reach nine tenths of the rate first).
	args := []string{"-n", strconv.Itoa(n), "-rate", "20000", "-slots", "1", "-autoscale", "1:4", "-log", logPath}
	require.NoError(t, run(t.Context(), args, &out, &progress), progress.String())
	text := out.String()
	t.Log(text)
	assert.Contains(t, text, "mailer: then as many as the stage wants, 1 to 4")
	assert.Regexp(t, `(?m)^mailer: [\d.]+m?s: the stage wants \d+ workers: started w2\b`, text, "a worker started as the stage asked")
	assert.Regexp(t, `(?m)^mailer: [\d.]+m?s: the stage wants 0 workers: (stopped w\d+, )*stopped w2 \(1 running\)$`, text, "and stopped once it wanted none")
	byWorker := rows(t, text)
	assert.Equal(t, "finished", byWorker["w1"].ended)
	assert.Equal(t, "stopped: not wanted", byWorker["w2"].ended)
	assert.Positive(t, byWorker["w2"].receipts, "the worker started got its share")
	assert.Regexp(t, `(?m)^autoscale: +1 to 4 workers as the stage wanted; at most [2-4] at once, \d+ changes$`, text)
	assert.Contains(t, text, "every email of 4000 was delivered by the mail server exactly once: ok")
}

func TestAMasterWithoutWorkersWaitsForOneStartedByHand(t *testing.T) {
	const n = 500
	out := &watched{re: regexp.MustCompile(`waiting for workers: go run \./examples/mailer (-worker -master (\S+) -slots 4)\n`), hit: make(chan []string, 1)}
	var progress bytes.Buffer
	done := make(chan error, 1)
	args := []string{"-n", strconv.Itoa(n), "-rate", "5000", "-workers", "0", "-slots", "4", "-log", filepath.Join(t.TempDir(), "log")}
	go func() { done <- run(t.Context(), args, out, &progress) }()
	var hint []string
	select {
	case hint = <-out.hit:
	case err := <-done:
		t.Fatalf("the master ended before it waited: %v\n%s", err, out.String())
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	worker := exec.CommandContext(ctx, os.Args[0], append(strings.Fields(hint[1]), "-name", "byhand")...)
	worker.Stderr = os.Stderr
	said, err := worker.Output()
	require.NoError(t, err, "the worker ends cleanly once the campaign has finished")
	assert.Equal(t, "mailer: worker byhand: joining the master at "+hint[2]+", to send 4 emails at once\n"+
		"mailer: worker byhand: the campaign has finished; it sent 500 emails\n", string(said))
	require.NoError(t, <-done)
	text := out.String()
	assert.Equal(t, map[string]row{"byhand": {name: "byhand", receipts: n, delivered: n, ended: "started by hand"}}, rows(t, text))
	assert.Contains(t, text, "check:              every email of 500 was delivered by the mail server exactly once: ok\n")
	assert.Contains(t, text, "                    and sent exactly once this time: 500 POSTs for 500 emails\n")
	assert.Zero(t, figure(t, text, "requeued"))
}

// A worker killed leaves the emails it held in the stage, and no other is
// registered: a line says so, with the command that starts one and when
// they fail; after -wait a line says how many failed for want of a worker;
// a worker started by hand then sends the rest, and the run fails naming
// the emails lost.
func TestEmailsWaitingForAWorkerAreSaidAndSoIsTheirFailure(t *testing.T) {
	const n = 300
	out := &watched{re: regexp.MustCompile(`(?m)^mailer: (\d+) emails have failed for good for want of a worker \(remote\.ErrNoWorker\): none could take them within -wait 1s\n`), hit: make(chan []string, 1)}
	var progress bytes.Buffer
	done := make(chan error, 1)
	args := []string{"-n", strconv.Itoa(n), "-rate", "1000", "-workers", "1", "-kill-after", "50", "-join-after", "0", "-wait", "1s",
		"-log", filepath.Join(t.TempDir(), "log")}
	go func() { done <- run(t.Context(), args, out, &progress) }()
	var failed []string
	select {
	case failed = <-out.hit:
	case err := <-done:
		t.Fatalf("the master ended before emails failed: %v\n%s", err, out.String())
	}
	text := out.String()
	waiting := regexp.MustCompile(`(?m)^mailer: no worker registered: (\d+) emails wait in the stage for one, and fail for good at \d\d:\d\d:\d\d \(-wait 1s\) unless one registers; start one with: go run \./examples/mailer (-worker -master \S+ -slots 8)$`).FindStringSubmatch(text)
	require.NotNil(t, waiting, text)
	assert.Equal(t, waiting[1], failed[1], "the emails that waited in the stage are those that failed")
	assert.Less(t, strings.Index(text, "killed worker w1"), strings.Index(text, waiting[0]), "said once w1 was killed")

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	worker := exec.CommandContext(ctx, os.Args[0], append(strings.Fields(waiting[2]), "-name", "byhand")...)
	worker.Stderr = os.Stderr
	require.NoError(t, worker.Run(), "the worker ends cleanly once the campaign has finished")
	err := <-done
	require.Error(t, err)
	assert.Contains(t, err.Error(), failed[1]+" emails failed for good: ")
	text = out.String()
	assert.Regexp(t, `(?m)^mailer: 1 workers registered: the emails go on$`, text)
	lost, _ := strconv.Atoi(failed[1])
	assert.Equal(t, n-lost, figure(t, text, "emails sent"), "every email but those sent")
	assert.Contains(t, text, "check:              FAILED: ")
}

// The master, the workers it starts and those started by hand speak
// mutual TLS with the files given (certificates made here, for
// 127.0.0.1), and so do the workers and the mail server; a worker whose
// certificate another authority signed is refused, and exits 1.
func TestAMasterAndItsWorkersSpeakMutualTLS(t *testing.T) {
	ca, other := certs.NewAuthority(t, "mailer-ca"), certs.NewAuthority(t, "other-ca")
	master, byHand := ca.Files(t, ca, "master", nil), ca.Files(t, ca, "byhand", nil)
	stranger := other.Files(t, ca, "stranger", nil) // trusts the master, which does not trust it
	files := func(f certs.Files) []string { return []string{"-tls-ca", f.CA, "-tls-cert", f.Cert, "-tls-key", f.Key} }

	t.Run("started by the master", func(t *testing.T) {
		var out, progress bytes.Buffer
		args := append([]string{"-n", "300", "-rate", "5000", "-workers", "1", "-kill-after", "0", "-join-after", "0", "-log", filepath.Join(t.TempDir(), "log")}, files(master)...)
		require.NoError(t, run(t.Context(), args, &out, &progress), progress.String())
		text := out.String()
		assert.Regexp(t, `(?m)^mailer: mail server at https://127\.0\.0\.1:\d+: `, text)
		assert.Contains(t, text, "mailer: over mutual TLS; a worker on another machine gives its own -tls-cert and -tls-key, and -listen its own HOST:0\n")
		assert.Equal(t, "finished", rows(t, text)["w1"].ended)
		assert.Contains(t, text, "check:              every email of 300 was delivered by the mail server exactly once: ok\n")
	})

	t.Run("started by hand", func(t *testing.T) {
		out := &watched{re: regexp.MustCompile(`waiting for workers: go run \./examples/mailer -worker -master (\S+) -slots 4 -tls-ca \S+ -tls-cert \S+ -tls-key \S+ -listen 127\.0\.0\.1:0\n`), hit: make(chan []string, 1)}
		var progress bytes.Buffer
		done := make(chan error, 1)
		args := append([]string{"-n", "200", "-rate", "5000", "-workers", "0", "-slots", "4", "-log", filepath.Join(t.TempDir(), "log")}, files(master)...)
		go func() { done <- run(t.Context(), args, out, &progress) }()
		var hint []string
		select {
		case hint = <-out.hit:
		case err := <-done:
			t.Fatalf("the master ended before it waited: %v\n%s", err, out.String())
		}
		_, stderr, code := program(t, append([]string{"-worker", "-master", hint[1], "-name", "stranger"}, files(stranger)...)...)
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "remote: ", "refused, saying so")
		assert.Contains(t, stderr, "certificate", "at the TLS handshake")

		stdout, stderr, code := program(t, append([]string{"-worker", "-master", hint[1], "-slots", "4", "-name", "byhand"}, files(byHand)...)...)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stdout, "mailer: worker byhand: the campaign has finished; it sent 200 emails\n")
		require.NoError(t, <-done)
		assert.Equal(t, map[string]row{"byhand": {name: "byhand", receipts: 200, delivered: 200, ended: "started by hand"}}, rows(t, out.String()))
	})
}

// With -clients the rate agent and the remote stage share their tokens and
// workers among the clients by weight: a small client is done long before
// a big one, where first come, first served would have it done last.
func TestClientsShareTheWorkersFairly(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "campaign.ndjson")
	var out, progress bytes.Buffer
	args := []string{"-clients", "big:3000,small:100:2", "-workers", "2", "-slots", "2", "-kill-after", "0", "-join-after", "0", "-log", logPath}
	require.NoError(t, run(t.Context(), args, &out, &progress), progress.String())
	text := out.String()
	t.Log(text)
	assert.Contains(t, text, "mailer: 3100 emails of 2 clients, each posting its own: big 3000, small 100 (weight 2)")
	done := regexp.MustCompile(`(?m)^  client (\w+): \d+ emails, weight \d, done after ([\d.]+m?s) \(first come, first served: about ([\d.]+m?s)\)$`)
	ends := map[string]time.Duration{}
	for _, m := range done.FindAllStringSubmatch(text, -1) {
		d, err := time.ParseDuration(m[2])
		require.NoError(t, err)
		ends[m[1]] = d
	}
	require.Len(t, ends, 2, "a line for each client")
	assert.Less(t, ends["small"], ends["big"]/4,
		"the small client's 100 emails, at twice the big one's weight, are done within a quarter of the big one's time")
	assert.Contains(t, text, "every email of 3100 was delivered by the mail server exactly once: ok")
}
