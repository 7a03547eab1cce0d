package promserve_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/internal/promserve"
	"github.com/evolvekit/evolve/parallel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// scrape returns the metrics the server serves, in Prometheus's text
// format.
func scrape(t *testing.T, srv *promserve.Server) string {
	t.Helper()
	resp, err := http.Get(srv.URL())
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(body)
}

// buckets returns the cumulative counts of the histogram name's buckets
// for agent, by upper bound.
func buckets(t *testing.T, body, name, agent string) map[string]int {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + name + `_bucket\{agent="` + agent + `",le="([^"]+)"\} (\d+)$`)
	out := map[string]int{}
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		n, err := strconv.Atoi(m[2])
		require.NoError(t, err)
		out[m[1]] = n
	}
	return out
}

func TestAWorkOf2msIsCountedInABucketOf5msOrLess(t *testing.T) {
	workOf2ms(t, func(srv *promserve.Server) []agent.Option {
		return []agent.Option{agent.WithMeterProvider(srv.Provider())}
	})
}

func TestTheAgentsOwnHistogramsCountAWorkOf2msAsTheInstrumentsDo(t *testing.T) {
	workOf2ms(t, (*promserve.Server).Options)
}

// workOf2ms runs three works of 2 ms on a runtime made with the options
// opts gives for the server, and checks what a scrape finds of them.
func workOf2ms(t *testing.T, opts func(*promserve.Server) []agent.Option) {
	srv, err := promserve.Start("127.0.0.1:0")
	require.NoError(t, err)
	defer func() { require.NoError(t, srv.Close(context.Background())) }()
	// In a bubble the work's sleep takes 2 ms exactly, however loaded the
	// machine; the scrape is made outside it, over the network.
	synctest.Test(t, func(t *testing.T) {
		rt := agenttest.Runtime(t, opts(srv)...)
		h, err := parallel.New(rt, parallel.Config{Name: "fetch", Limit: 1}, func(_ context.Context, v int) (int, error) {
			time.Sleep(2 * time.Millisecond)
			return v, nil
		}, nil)
		require.NoError(t, err)
		for i := range 3 {
			require.NoError(t, h.Post(context.Background(), i))
		}
		h.Close()
		require.NoError(t, h.Wait(context.Background()))
	})

	body := scrape(t, srv)
	work := buckets(t, body, "evolve_work_duration_seconds", "fetch")
	require.NotEmpty(t, work, "the work's histogram is served:\n%s", body)
	assert.Equal(t, 0, work["0.001"], "no work took 1 ms or less")
	assert.Equal(t, 3, work["0.002"], "each work took 2 ms")
	assert.Equal(t, 3, work["0.005"])
	assert.Equal(t, 3, work["+Inf"])
	assert.Regexp(t, `(?m)^evolve_work_duration_seconds_sum\{agent="fetch"\} 0\.006`, body, "three works of 2 ms")
	assert.Regexp(t, `(?m)^evolve_work_duration_seconds_count\{agent="fetch"\} 3$`, body)
	wait := buckets(t, body, "evolve_queue_wait_seconds", "fetch")
	assert.Contains(t, wait, "1e-05", "the queue's wait is told apart from 10 µs up")
	assert.Contains(t, wait, "60")
	assert.Equal(t, 3, wait["+Inf"], "each item's wait is counted")
}

func TestTheLivePageIsServedAtTheRootAndCloseStopsItsSampler(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	promserve.Watch[int, parallel.Status](nil, nil) // no server: nothing to do
	srv, err := promserve.Start("127.0.0.1:0")
	require.NoError(t, err)
	resp, err := http.Get(srv.PageURL())
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), "live.js")
	assert.Equal(t, srv.URL(), srv.PageURL()+"metrics", "the page beside the metrics")
	require.NoError(t, srv.Close(context.Background()))
	http.DefaultClient.CloseIdleConnections()
}
