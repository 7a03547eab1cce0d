package promserve_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/promserve"
	"github.com/evolvekit/evolve/parallel"
)

// A runtime whose agents publish to the server's provider: a scrape of its
// URL finds their gauges, by agent name.
func Example() {
	srv, err := promserve.Start("127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer srv.Close(context.Background())
	rt := agent.NewRuntime(agent.WithMeterProvider(srv.Provider()))
	defer rt.Shutdown(context.Background())

	release := make(chan struct{})
	h, err := parallel.New(rt, parallel.Config{Name: "fetch", Limit: 3}, func(_ context.Context, v int) (int, error) {
		<-release
		return v, nil
	}, nil)
	if err != nil {
		panic(err)
	}
	for i := range 3 {
		if err := h.Post(context.Background(), i); err != nil {
			panic(err)
		}
	}
	if _, err := h.Status(context.Background()); err != nil { // a round trip: the agent has published
		panic(err)
	}
	resp, err := http.Get(srv.URL())
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for line := range strings.Lines(string(body)) {
		if strings.HasPrefix(line, "evolve_limit") {
			fmt.Print(line)
		}
	}
	close(release)
	h.Close()
	if err := h.Wait(context.Background()); err != nil {
		panic(err)
	}
	// Output:
	// evolve_limit{agent="fetch"} 3
}
