package livepage_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/internal/livepage"
	"github.com/evolvekit/evolve/internal/promserve"
	"github.com/evolvekit/evolve/internal/testing/browser"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// stuck is a chain pace -> work -> batch, watched by a metrics server,
// whose work waits until released: once the items posted have come as far
// as they can, its status holds still.
type stuck struct {
	srv   *promserve.Server
	chain agent.Handle[int, compose.Status]
	st    compose.Status // the status once it holds still
}

// items is how many items a stuck chain is posted: more than the work
// stage's limit and queue hold, so that the pace stage keeps some.
const items = 9

// startStuck starts a stuck chain; the test's cleanup releases it, waits
// for it and closes the server.
func startStuck(t *testing.T) *stuck {
	t.Helper()
	srv, err := promserve.Start("127.0.0.1:0")
	require.NoError(t, err)
	rt := agent.NewRuntime(srv.Options()...)
	release := make(chan struct{})
	pace, err := rate.Stage(rate.Config[int]{Name: "pace", Rate: 1000, Burst: items})
	require.NoError(t, err)
	work, err := parallel.Stage(parallel.Config{Name: "work", Limit: 2, Queue: 3}, func(ctx context.Context, v int) (int, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return v, nil
	})
	require.NoError(t, err)
	batch, err := buffer.Stage(buffer.Config[int]{Name: "batch", Size: 4}, func(context.Context, []int) error { return nil })
	require.NoError(t, err)
	chain, err := compose.Start(rt, compose.Pipe3(pace, work, batch), nil, compose.WithName("demo"))
	require.NoError(t, err)
	t.Cleanup(func() {
		close(release)
		chain.Close()
		assert.NoError(t, chain.Wait(context.Background()))
		assert.NoError(t, rt.Shutdown(context.Background()))
		assert.NoError(t, srv.Close(context.Background()))
	})
	promserve.Watch(srv, chain)
	ctx := context.Background()
	for i := range items {
		require.NoError(t, chain.Post(ctx, i))
	}
	s := &stuck{srv: srv, chain: chain}
	// The items move on as the pace lets them: ask until the status holds
	// still over a run of answers (a bounded loop of round trips).
	var last compose.Status
	still := 0
	for i := 0; i < 100000 && still < 50; i++ {
		st, err := chain.Status(ctx)
		require.NoError(t, err)
		if agentsEqual(st, last) && st.Agents[1].InFlight == 2 {
			still++
		} else {
			still = 0
		}
		last = st
	}
	require.Equal(t, 50, still, "the chain's status holds still: %+v", last)
	s.st = last
	// Two windows' samples of the chain as it holds still, at instants
	// of the test's: the last window holds none that the server's own
	// sampler may have taken before.
	now := time.Now()
	for i := range int(2 * livepage.Window / livepage.Period) {
		srv.Page().Sample(ctx, now.Add(time.Duration(i)*livepage.Period))
	}
	return s
}

// agentsEqual reports whether a and b have stages of the same loads.
func agentsEqual(a, b compose.Status) bool {
	if len(a.Agents) != len(b.Agents) {
		return false
	}
	for i := range a.Agents {
		if a.Agents[i].Load != b.Agents[i].Load {
			return false
		}
	}
	return true
}

// get returns the body of url.
func get(t *testing.T, url string) (string, http.Header) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, url)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b), resp.Header
}

// figures are the integer figures of a stage that its Status gives, by
// the name live.json gives them.
func figures(a compose.AgentStatus) map[string]int {
	f := map[string]int{"queued": a.Queued, "in_flight": a.InFlight, "done": a.Done, "failed": a.Failed}
	if !a.Demand.IsUnbounded() {
		f["demand"] = int(a.Demand)
	}
	if p, ok := a.Detail.(parallel.Status); ok {
		f["limit"], f["results"] = p.Limit, p.Held
	}
	return f
}

func TestThePageAndItsDocumentShowARunningChain(t *testing.T) {
	s := startStuck(t)
	page, hdr := get(t, s.srv.PageURL())
	assert.Contains(t, hdr.Get("Content-Type"), "text/html")
	assert.Contains(t, page, `<script src="live.js">`)
	js, _ := get(t, s.srv.PageURL()+"live.js")
	assert.Contains(t, js, `fetch("live.json"`)
	metrics, _ := get(t, s.srv.URL())
	assert.Contains(t, metrics, `evolve_queued{agent="work"}`, "/metrics beside the page")

	body, _ := get(t, s.srv.PageURL()+"live.json")
	var doc livepage.Live
	require.NoError(t, json.Unmarshal([]byte(body), &doc))
	require.Len(t, doc.Chains, 1)
	c := doc.Chains[0]
	assert.Equal(t, "demo", c.Name)
	require.Len(t, c.Stages, 3)
	for i, a := range s.st.Agents {
		got := c.Stages[i]
		assert.Equal(t, a.Name, got.Name)
		want := figures(a)
		have := map[string]int{"queued": got.Queued, "in_flight": got.InFlight, "done": got.Done, "failed": got.Failed}
		if got.Demand != nil {
			have["demand"] = *got.Demand
		}
		if got.Limit != nil {
			have["limit"], have["results"] = *got.Limit, got.Results
		}
		assert.Equal(t, want, have, "stage %s", a.Name)
	}
	assert.Equal(t, []string{"rate", "parallel", "buffer"}, []string{c.Stages[0].Kind, c.Stages[1].Kind, c.Stages[2].Kind})
	assert.Equal(t, livepage.Shares{Busy: 1}, c.Stages[1].Shares, "the work stage works on its limit throughout")
	require.NotNil(t, c.Stages[0].Tokens, "the pace stage's bucket")
	assert.Equal(t, "work", c.Bottleneck)
}

var (
	stageRE  = regexp.MustCompile(`(?s)<section class="stage[^"]*" data-stage="([^"]+)">(.*?)</section>`)
	figureRE = regexp.MustCompile(`<dd data-k="([a-z_0-9]+)">([^<]*)</dd>`)
)

func TestABrowserShowsTheChainsStatus(t *testing.T) {
	bin := browser.Find(t)
	s := startStuck(t)
	dom, logged := browser.Browse(t, bin, s.srv.PageURL(), "--dump-dom")
	assert.NotContains(t, logged, "Uncaught", "no script error")
	assert.NotContains(t, dom, "data-error", "no script error")
	assert.Regexp(t, `data-polls="[1-9]`, dom, "the script drew what live.json said")
	stages := stageRE.FindAllStringSubmatch(dom, -1)
	require.Len(t, stages, 3, dom)
	for i, a := range s.st.Agents {
		assert.Equal(t, a.Name, stages[i][1])
		shown := map[string]int{}
		for _, f := range figureRE.FindAllStringSubmatch(stages[i][2], -1) {
			if n, err := strconv.Atoi(f[2]); err == nil {
				shown[f[1]] = n
			}
		}
		for k, v := range figures(a) {
			assert.Equal(t, v, shown[k], "stage %s shows %s", a.Name, k)
		}
	}
	assert.Contains(t, stages[1][0], "stage busy", "the work stage is drawn busy")
	assert.Contains(t, stages[1][0], "bottleneck")

	shot := filepath.Join(t.TempDir(), "live.png")
	browser.Browse(t, bin, s.srv.PageURL(), "--screenshot="+shot)
	png, err := os.ReadFile(shot)
	require.NoError(t, err)
	assert.True(t, len(png) > 1000 && string(png[1:4]) == "PNG", "a screenshot of the page")
	if out := os.Getenv("LIVEPAGE_SCREENSHOT"); out != "" {
		require.NoError(t, os.WriteFile(out, png, 0o644))
	}
}
