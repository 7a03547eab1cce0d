package livepage

import (
	"context"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/evolvekit/evolve/internal/testing/browser"
	"github.com/evolvekit/evolve/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	timelineRE = regexp.MustCompile(`(?s)<div class="timeline" data-worker="([0-9]+)">(.*?)</div>`)
	cellRE     = regexp.MustCompile(`<span class="cell( hung)?( failed)?"`)
)

func TestABrowserDrawsARowPerWorkerOverTheWindow(t *testing.T) {
	bin := browser.Find(t)
	p := New(nil)
	status := func(inFlight, hung, failed int) chainStatus {
		rs := remote.Status{Workers: []remote.WorkerStatus{
			{ID: 3, Addr: "127.0.0.1:7003", Slots: 4, InFlight: inFlight, Hung: hung, Failed: failed},
			{ID: 4, Addr: "127.0.0.1:7004", Slots: 2, InFlight: 2},
		}}
		return chainStatus{Agents: []agentStatus{{Name: "gpu", Load: rs.Load, Detail: rs}}}
	}
	watchScript(p, "render", &script{statuses: []chainStatus{status(4, 0, 0), status(2, 0, 1), status(1, 1, 3)}}, nil)
	for i := range 3 {
		p.Sample(context.Background(), at(i))
	}
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	dom, logged := browser.Browse(t, bin, srv.URL+"/", "--dump-dom")
	assert.NotContains(t, logged, "Uncaught", "no script error")
	rows := timelineRE.FindAllStringSubmatch(dom, -1)
	require.Len(t, rows, 2, dom)
	assert.Equal(t, "3", rows[0][1])
	cells := cellRE.FindAllStringSubmatch(rows[0][2], -1)
	require.Len(t, cells, 3, "a cell a sample")
	assert.Equal(t, []string{"", ""}, cells[0][1:], "busy, nothing failed")
	assert.Equal(t, []string{"", " failed"}, cells[1][1:], "an attempt failed")
	assert.Equal(t, []string{" hung", " failed"}, cells[2][1:], "hung work, and two more failed")
	assert.Len(t, cellRE.FindAllString(rows[1][2], -1), 3)
}
