package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evolvekit/evolve/parallel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// childArgs, set in a process's environment, makes the test binary run
// the program with these arguments (separated by spaces) instead of the
// tests: a test may then kill it.
const childArgs = "EVOLVE_WAREHOUSE_ARGS"

func TestMain(m *testing.M) {
	if args := os.Getenv(childArgs); args != "" {
		os.Args = append([]string{"warehouse"}, strings.Fields(args)...)
		main()
	}
	goleak.VerifyTestMain(m)
}

// figure returns the number printed after label, as in "429s received:   0".
func figure(t *testing.T, out, label string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(label) + `:\s+(\d+)`).FindStringSubmatch(out)
	require.NotNil(t, m, "%q in:\n%s", label, out)
	n, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	return n
}

// elapsed returns the elapsed time printed.
func elapsed(t *testing.T, out string) time.Duration {
	t.Helper()
	m := regexp.MustCompile(`(?m)^elapsed:\s+(\S+) \(least possible: (\S+),`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	d, err := time.ParseDuration(m[1])
	require.NoError(t, err)
	return d
}

// readFiles reads the batch files in dir on its own, and returns how many
// times each id appears and the number of records in each file, by name.
func readFiles(t *testing.T, dir string) (seen map[int]int, sizes map[string]int) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	seen, sizes = map[int]int{}, map[string]int{}
	for _, name := range names {
		f, err := os.Open(name)
		require.NoError(t, err)
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var r record
			require.NoError(t, json.Unmarshal(sc.Bytes(), &r), name)
			assert.Equal(t, recordFor(r.ID), r, "the record as the API serves it")
			seen[r.ID]++
			sizes[filepath.Base(name)]++
		}
		require.NoError(t, sc.Err())
		require.NoError(t, f.Close())
	}
	return seen, sizes
}

func TestAtTheAPIsRateEveryRecordIsLoadedOnceWithoutA429(t *testing.T) {
	dir := t.TempDir()
	var out, progress bytes.Buffer
	args := []string{"-records", "200", "-rate", "500", "-parallel", "16", "-batch", "30", "-fail", "0", "-out", dir}
	require.NoError(t, run(t.Context(), args, &out, &progress))
	text := out.String()

	assert.Equal(t, 200, figure(t, text, "records loaded"))
	assert.Contains(t, text, "records loaded:  200 of 200, in 7 files\n")
	assert.Zero(t, figure(t, text, "429s received"))
	assert.Zero(t, figure(t, text, "5xx received"))
	assert.Zero(t, figure(t, text, "retries"))
	assert.Zero(t, figure(t, text, "dead letters"))
	assert.Contains(t, text, "the API:         200 requests, 200 records served, 0 429s and 0 5xx answered\n")
	assert.Contains(t, text, "check:           every id from 1 to 200 is in 7 files exactly once\n")
	assert.Regexp(t, `peak memory:     \d+\.\d MiB`, text)
	// The rate agent lets its burst through at once, then one id every
	// 2 ms: the last of 200 cannot go before (200-25)/500 s.
	assert.GreaterOrEqual(t, elapsed(t, text), 350*time.Millisecond)
	assert.Contains(t, text, "(least possible: 400ms, 200 records at 500 a second)")

	seen, sizes := readFiles(t, dir)
	require.Len(t, seen, 200)
	for id := 1; id <= 200; id++ {
		assert.Equal(t, 1, seen[id], "id %d", id)
	}
	assert.Len(t, sizes, 7)
	for i := 1; i <= 6; i++ {
		assert.Equal(t, 30, sizes[batchName(i)], batchName(i))
	}
	assert.Equal(t, 20, sizes[batchName(7)], "the last batch, flushed on close")
}

func TestWithATenthOfTheRequestsFailingTheRetriesKeepWithinTheAPIsLimit(t *testing.T) {
	dir := t.TempDir()
	var out, progress bytes.Buffer
	args := []string{"-records", "600", "-rate", "400", "-parallel", "16", "-batch", "100", "-fail", "0.1", "-out", dir}
	require.NoError(t, run(t.Context(), args, &out, &progress))
	text := out.String()

	failed := figure(t, text, "5xx received")
	assert.Greater(t, failed, 30, "about a tenth of some 660 requests")
	assert.Equal(t, failed, figure(t, text, "retries"), "each 503 is retried")
	assert.Equal(t, 600+failed, figure(t, text, "requests"))
	assert.Contains(t, text, fmt.Sprintf("%d took a token of the rate agent", failed), "every retry waited for its token")
	assert.Zero(t, figure(t, text, "429s received"), "retries included, the API's limit was kept")
	assert.LessOrEqual(t, figure(t, text, "busiest second"), 400+burst(400), "a bucket of 400 a second lets no more through in a second")
	assert.Zero(t, figure(t, text, "dead letters"))
	assert.Contains(t, text, "check:           every id from 1 to 600 is in 6 files exactly once\n")
	seen, _ := readFiles(t, dir)
	assert.Len(t, seen, 600)
}

func TestAboveTheAPIsRateThe429sAreCountedAndRetried(t *testing.T) {
	dir := t.TempDir()
	var out, progress bytes.Buffer
	args := []string{"-records", "100", "-rate", "400", "-api-rate", "100", "-parallel", "16", "-batch", "25", "-fail", "0", "-out", dir}
	require.NoError(t, run(t.Context(), args, &out, &progress))
	text := out.String()

	tooMany := figure(t, text, "429s received")
	assert.Positive(t, tooMany, "four times the API's rate")
	assert.Contains(t, text, fmt.Sprintf("the API:         %d requests, 100 records served, %d 429s and 0 5xx answered\n", 100+tooMany, tooMany),
		"the loader counts every 429 the API sent")
	assert.Equal(t, tooMany, figure(t, text, "retries"), "every 429 is retried")
	assert.Equal(t, 100, figure(t, text, "records loaded"))
	assert.Zero(t, figure(t, text, "dead letters"))
	assert.Contains(t, text, "check:           every id from 1 to 100 is in 4 files exactly once\n")
	assert.GreaterOrEqual(t, elapsed(t, text), 800*time.Millisecond, "the API's own limit: (100-20)/100 s")
	seen, _ := readFiles(t, dir)
	assert.Len(t, seen, 100)
}

func TestARecordThatFailsForGoodIsReportedNotLost(t *testing.T) {
	dir := t.TempDir()
	cfg, err := parseFlags([]string{"-records", "40", "-rate", "1000", "-batch", "10", "-out", dir}, nil)
	require.NoError(t, err)
	cfg.retry = parallel.Retry{Attempts: 3, Backoff: time.Millisecond, MaxBackoff: time.Millisecond, If: retryable}
	fail := faults{about: "500 for record 7, 403 for 13, 502 twice for 21", status: func(id, attempt int) int {
		switch {
		case id == 7:
			return http.StatusInternalServerError // every time
		case id == 13:
			return http.StatusForbidden // not worth retrying
		case id == 21 && attempt < 3:
			return http.StatusBadGateway // the third request succeeds
		}
		return 0
	}}
	var out, progress bytes.Buffer
	err = warehouse(t.Context(), cfg, fail, &out, &progress)
	require.EqualError(t, err, "2 records failed for good")
	assert.Equal(t, 1, exitCode(err, &progress))
	text := out.String()
	assert.Contains(t, text, "answers in 20ms, and 500 for record 7, 403 for 13, 502 twice for 21\n")
	assert.Contains(t, text, "records loaded:  38 of 40, in 4 files\n")
	assert.Contains(t, text, "dead letters:    2\n"+
		"  record 7: 500 Internal Server Error (fetch, after 3 attempts)\n"+
		"  record 13: 403 Forbidden (fetch, after 1 attempt)\n")
	assert.Equal(t, 3+2, figure(t, text, "5xx received"))
	assert.Contains(t, text, "check:           every id from 1 to 40 is in 4 files exactly once, but the 2 dead letters, which are in none\n")
	seen, _ := readFiles(t, dir)
	assert.Len(t, seen, 38)
	assert.Zero(t, seen[7])
	assert.Zero(t, seen[13])
	assert.Equal(t, 1, seen[21])
}

func TestAnInterruptedLoadStopsAndSaysHowFarItGot(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	var progress bytes.Buffer
	// Cancel a moment after the load starts, whatever it is doing then.
	out := &cancelOn{w: &bytes.Buffer{}, s: "warehouse: loading", cancel: func() { time.AfterFunc(300*time.Millisecond, cancel) }}
	err := run(ctx, []string{"-records", "100000", "-rate", "1000", "-batch", "100", "-out", dir}, out, &progress)
	require.Error(t, err)
	assert.Regexp(t, `^interrupted after \S+: \d+ of 100000 records loaded into `+regexp.QuoteMeta(dir)+`$`, err.Error())
	seen, sizes := readFiles(t, dir) // whole files only
	for name, n := range sizes {
		assert.Equal(t, 100, n, name)
	}
	for id, n := range seen {
		assert.Equal(t, 1, n, "id %d", id)
	}
	// TestMain checks that no agent, request or connection outlives run.
}

// cancelOn is a writer that calls cancel once what is written contains s.
type cancelOn struct {
	w      *bytes.Buffer
	s      string
	cancel func()
}

// Write writes p and cancels if it contains s.
func (c *cancelOn) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(c.s)) {
		c.cancel()
	}
	return c.w.Write(p)
}

func TestBadFlagsAreRefusedByName(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-records", "0"}, "-records must be between 1 and 10000000, got 0"},
		{[]string{"-records", "many"}, `invalid value "many" for flag -records`},
		{[]string{"-rate", "0"}, "-rate must be above 0 and at most 100000, got 0"},
		{[]string{"-rate", "NaN"}, "-rate must be above 0 and at most 100000, got NaN"},
		{[]string{"-api-rate", "-5"}, "-api-rate must be above 0 and at most 100000, got -5"},
		{[]string{"-parallel", "0"}, "-parallel must be between 1 and 1000, got 0"},
		{[]string{"-batch", "-1"}, "-batch must be between 1 and 1000000, got -1"},
		{[]string{"-fail", "1.5"}, "-fail must be between 0 and 1, got 1.5"},
		{[]string{"-fail", "NaN"}, "-fail must be between 0 and 1, got NaN"},
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"-api", "ftp://example.com"}, `-api must be an http:// or https:// URL with a host, got "ftp://example.com"`},
		{[]string{"-api", "http://127.0.0.1:8080", "-fail", "0.1"}, "-api-rate, -fail and -api-listen configure the API the program starts: not with -api"},
		{[]string{"-api", "http://127.0.0.1:8080", "-api-rate", "10"}, "configure the API the program starts: not with -api"},
		{[]string{"-api", "http://127.0.0.1:8080", "-api-listen", "127.0.0.1:8080"}, "configure the API the program starts: not with -api"},
		{[]string{"-api-listen", "0.0.0.0:8080"}, `-api-listen must be host:port on the loopback, got "0.0.0.0:8080"`},
		{[]string{"-listen", "127.0.0.1:0"}, "-listen needs -state: it lets other processes into the queue kept there"},
		{[]string{"-listen", "10.1.2.3:4222", "-state", "d"}, `-listen off the loopback needs -tls-ca, -tls-cert and -tls-key: the queue's connections would be in the clear, got "10.1.2.3:4222"`},
		{[]string{"-listen", "4222", "-state", "d"}, `-listen must be host:port, got "4222"`},
		{[]string{"-listen", ":4222", "-state", "d"}, `-listen must name the host the joiners dial, as the URL printed for them does, got ":4222"`},
		{[]string{"-listen", "0.0.0.0:4222", "-state", "d", "-tls-ca", "a", "-tls-cert", "b", "-tls-key", "c"}, `-listen must name the host the joiners dial`},
		{[]string{"-join", "127.0.0.1:4222", "-api", "http://127.0.0.1:8080"}, "-join must be a nats:// or tls:// URL with a host"},
		{[]string{"-join", "tls://10.1.2.3:4222", "-api", "http://127.0.0.1:8080"}, "-join tls://10.1.2.3:4222 needs -tls-ca, -tls-cert and -tls-key: the serving warehouse speaks TLS"},
		{[]string{"-state", "d", "-listen", "127.0.0.1:0", "-tls-ca", "a"}, "-tls-ca, -tls-cert and -tls-key go together"},
		{[]string{"-tls-ca", "a", "-tls-cert", "b", "-tls-key", "c"}, "-tls-ca, -tls-cert and -tls-key secure the queue's connections: with -listen or -join"},
		{[]string{"-state", "d", "-listen", "10.1.2.3:0", "-tls-ca", "a", "-tls-cert", "b", "-tls-key", "c"}, "-tls-ca, -tls-cert, -tls-key: mtls: unusable files: CA file: open a: no such file or directory"},
		{[]string{"-join", "nats://127.0.0.1:4222"}, "-join needs -api: a joiner sends to the API of the warehouse it joins"},
		{[]string{"-join", "nats://127.0.0.1:4222", "-api", "http://127.0.0.1:8080", "-records", "5"}, "-records does not go with -join: the serving warehouse fills the queue"},
		{[]string{"-join", "nats://127.0.0.1:4222", "-api", "http://127.0.0.1:8080", "-state", "d", "-listen", "127.0.0.1:0"}, "-listen and -join do not go together"},
		{[]string{"check"}, "check: -records must be between 1 and 10000000, got 0"},
		{[]string{"check", "-records", "10"}, "check: name the directories to check"},
		{[]string{"check", "-records", "10", "-rework", "-1", "d"}, "check: -rework must not be negative, got -1"},
		{[]string{"check", "-nope"}, "flag provided but not defined: -nope"},
	} {
		var out, errs bytes.Buffer
		err := run(t.Context(), tc.args, &out, &errs)
		require.Error(t, err, tc.args)
		assert.Contains(t, err.Error(), tc.want)
		assert.Empty(t, out.String(), "nothing runs")
		assert.Equal(t, 2, exitCode(err, &errs), tc.args)
		assert.Contains(t, errs.String(), "warehouse: "+err.Error()+"\nrun warehouse -h for the flags\n")
	}
}

// TestAFailedStartLeavesNoTemporaryDirectory runs the program with
// addresses it cannot listen at and no -out: it makes no temporary
// directory, or removes the one it made.
func TestAFailedStartLeavesNoTemporaryDirectory(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	for _, args := range [][]string{
		{"--metrics", "nope"},
		{"-records", "10", "-metrics", taken.Addr().String()},
		{"-records", "10", "-api-listen", taken.Addr().String()},
	} {
		var out, errs bytes.Buffer
		err := run(t.Context(), args, &out, &errs)
		require.Error(t, err, args)
		assert.Equal(t, 1, exitCode(err, &errs), args)
		left, err := os.ReadDir(tmp)
		require.NoError(t, err)
		assert.Empty(t, left, "%v left them behind", args)
	}
}

func TestTheFleetsFlagsAreRead(t *testing.T) {
	cfg, err := parseFlags([]string{"-join", "nats://127.0.0.1:4222", "-api", "http://127.0.0.1:8080", "-rate", "300", "-state", "d"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "nats://127.0.0.1:4222", cfg.join)
	assert.Equal(t, "http://127.0.0.1:8080", cfg.api)
	assert.Zero(t, cfg.records, "the serving process's")
	cfg, err = parseFlags([]string{"-state", "d", "-listen", "localhost:4222", "-api-listen", "[::1]:8080"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "localhost:4222", cfg.listen)
	assert.Equal(t, "[::1]:8080", cfg.apiListen)
	assert.Equal(t, "127.0.0.1:0", defaults().apiListen)
	assert.Nil(t, cfg.tlsConfig)

	tlsFlags := newTestCA(t).files(t)
	cfg, err = parseFlags(append([]string{"-state", "d", "-listen", "10.1.2.3:4222"}, tlsFlags...), nil)
	require.NoError(t, err, "off the loopback with TLS")
	assert.Equal(t, "10.1.2.3:4222", cfg.listen)
	require.NotNil(t, cfg.tlsConfig)
	assert.Len(t, cfg.tlsConfig.Certificates, 1)
	_, err = parseFlags(append([]string{"-join", "tls://10.1.2.3:4222", "-api", "http://10.1.2.3:8080"}, tlsFlags...), nil)
	require.NoError(t, err)
}

func TestAnOutputDirectoryWithEarlierFilesIsRefused(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, batchName(1)), []byte("{}\n"), 0o644))
	var out, errs bytes.Buffer
	err := run(t.Context(), []string{"-records", "10", "-out", dir}, &out, &errs)
	require.Error(t, err)
	assert.Equal(t, "-out: "+dir+" already holds 1 batch files (batch-000001.ndjson, ...): remove them or choose another directory", err.Error())
	assert.Equal(t, 1, exitCode(err, &errs))
	assert.Empty(t, out.String(), "nothing runs")

	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	err = run(t.Context(), []string{"-records", "10", "-out", file}, &out, &errs)
	assert.ErrorContains(t, err, "-out: ")
}

func TestHelpPrintsTheUsageAndSucceeds(t *testing.T) {
	var out, errs bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-h"}, &out, &errs))
	for _, f := range []string{"-records", "-rate", "-api-rate", "-parallel", "-batch", "-fail", "-out", "-state",
		"-api", "-api-listen", "-listen", "-join", "-tls-ca", "-tls-cert", "-tls-key", "warehouse check -records N [-rework R] DIR..."} {
		assert.Contains(t, out.String(), f)
	}
	assert.Empty(t, errs.String())
	var help bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"check", "-h"}, &help, &errs))
	assert.Equal(t, out.String(), help.String())
}

func TestTheMetricsEndpointShowsEveryAgentWhileTheLoadRuns(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	progress := &scrapeOn{t: t, out: &out}
	args := []string{"-records", "300", "-rate", "200", "-batch", "50", "-fail", "0", "-metrics", "127.0.0.1:0", "-out", dir}
	require.NoError(t, run(t.Context(), args, &out, progress))
	require.NotEmpty(t, progress.body, "scraped during the load")
	for _, name := range []string{"rate", "fetch", "files"} {
		assert.Regexp(t, `(?m)^evolve_queued\{agent="`+name+`"\} \d+$`, progress.body, "the gauges of %s", name)
	}
	assert.Regexp(t, `(?m)^evolve_limit\{agent="fetch"\} 8$`, progress.body)
	assert.Regexp(t, `(?m)^evolve_tokens\{agent="rate"\} `, progress.body)
	assert.Regexp(t, `(?m)^evolve_work_duration_seconds_count\{agent="fetch"\} [1-9]`, progress.body)
}

// scrapeOn is a progress writer that, on the first progress line, scrapes
// the metrics endpoint whose URL the program printed to out.
type scrapeOn struct {
	t    *testing.T
	out  *bytes.Buffer
	body string
}

// Write scrapes the endpoint once, when p is a progress line.
func (s *scrapeOn) Write(p []byte) (int, error) {
	if s.body == "" && bytes.Contains(p, []byte("records loaded,")) {
		m := regexp.MustCompile(`metrics are at (\S+)`).FindStringSubmatch(s.out.String())
		if m != nil {
			resp, err := http.Get(m[1])
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				s.body = string(b)
			}
		}
	}
	return len(p), nil
}
