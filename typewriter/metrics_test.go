package main

import (
	"bytes"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scraper is a stderr that scrapes the metrics endpoint the program names
// on it, once, when the rate agent's status is logged: while the chain
// runs, and after the rate agent took in the keys typed before the newline
// and published its metrics.
type scraper struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	body string
}

func (s *scraper) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Write(p)
	if s.body == "" && bytes.Contains(p, []byte(`"agent":"rate"`)) {
		if m := regexp.MustCompile(`metrics are at (\S+)`).FindStringSubmatch(s.buf.String()); m != nil {
			if resp, err := http.Get(m[1]); err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				s.body = string(b)
			}
		}
	}
	return len(p), nil
}

func TestTheMetricsEndpointShowsEveryAgentOfTheChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "typewriter.txt")
	var stdout bytes.Buffer
	stderr := &scraper{}
	// The newline logs every agent's status, which is when the endpoint
	// is scraped: the keys before it are on their way down the chain.
	code := run([]string{"-f", path, "-r", "1000", "-b", "3", "--work-delay", "1ms", "--flush-delay", "0", "--metrics", "127.0.0.1:0"},
		strings.NewReader("abcdef\nghi"), &stdout, stderr)
	require.Equal(t, 0, code, stderr.buf.String())
	require.NotEmpty(t, stderr.body, "scraped while the chain ran")
	for _, name := range []string{"rate", "parallel", "buffer"} {
		assert.Regexp(t, `(?m)^evolve_queued\{agent="`+name+`"\} \d+$`, stderr.body, "the gauges of %s", name)
		assert.Regexp(t, `(?m)^evolve_in_flight\{agent="`+name+`"\} \d+$`, stderr.body)
	}
	assert.Regexp(t, `(?m)^evolve_items_in_total\{agent="rate"\} [1-9]`, stderr.body)
	assert.Regexp(t, `typewriter: a live page of the chain is at http://127\.0\.0\.1:\d+/\n`, stderr.buf.String())
	assert.Equal(t, []string{"abc", "def", "ghi"}, fileLines(t, path))
}
