// Package promserve serves the metrics of a program's agents to Prometheus:
// an OpenTelemetry meter provider whose reader is the OpenTelemetry
// Prometheus exporter, with the agents' own histograms as a producer, and
// an HTTP server that answers GET /metrics with what it reads, and GET /
// with the live page of the chains handed to [Watch] (package livepage).
// The programs of this module start one for their -metrics flag and hand
// its Provider to agent.WithMeterProvider and its Histograms to
// agent.WithHistograms (what Option returns does both), and their chains
// to Watch.
package promserve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/livepage"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// Server serves the metrics of one meter provider at /metrics, and the
// live page of the chains it watches at /.
type Server struct {
	mp    *sdkmetric.MeterProvider
	hist  *agent.Histograms
	page  *livepage.Page
	srv   *http.Server
	addr  string
	serve chan error // what Serve returned

	stopSampling context.CancelFunc
	sampled      chan struct{} // closed once the page's sampler has returned
}

// Start listens on addr (host:port; port 0 picks a free one) and serves
// the metrics of a new meter provider there, in Prometheus's text format.
func Start(addr string) (*Server, error) {
	reg := prometheus.NewRegistry()
	hist := agent.NewHistograms()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutScopeInfo(), otelprom.WithProducer(hist))
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	page := livepage.New(reg)
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.Handle("GET /", page.Handler())
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		mp:           sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp)),
		hist:         hist,
		page:         page,
		srv:          &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second},
		addr:         ln.Addr().String(),
		serve:        make(chan error, 1),
		stopSampling: cancel,
		sampled:      make(chan struct{}),
	}
	go func() { s.serve <- s.srv.Serve(ln) }() // owned by Close, which waits for it
	go func() {                                // owned by Close too
		defer close(s.sampled)
		page.Run(ctx, livepage.Period)
	}()
	return s, nil
}

// Watch shows h, a chain's handle or an agent's, on s's live page (see
// livepage.Watch). A nil s, a server not started, does nothing, so that a
// program calls it whether it serves metrics or not.
func Watch[I, S any](s *Server, h agent.Handle[I, S]) {
	if s != nil {
		livepage.Watch(s.page, h)
	}
}

// Page returns s's live page.
func (s *Server) Page() *livepage.Page { return s.page }

// PageURL returns the address of the live page, as in
// http://127.0.0.1:9464/.
func (s *Server) PageURL() string { return "http://" + s.addr + "/" }

// Provider returns the meter provider whose metrics the server serves.
func (s *Server) Provider() metric.MeterProvider { return s.mp }

// Histograms returns the producer of histograms the server serves too.
func (s *Server) Histograms() *agent.Histograms { return s.hist }

// Options returns the runtime options that publish a runtime's metrics to
// the server: its Provider and its Histograms.
func (s *Server) Options() []agent.Option {
	return []agent.Option{agent.WithMeterProvider(s.mp), agent.WithHistograms(s.hist)}
}

// URL returns the address of the metrics, as in
// http://127.0.0.1:9464/metrics.
func (s *Server) URL() string { return "http://" + s.addr + "/metrics" }

// Close stops serving and sampling, waits for the requests under way, for
// the serving goroutine and for the page's sampler, and shuts the meter
// provider down.
func (s *Server) Close(ctx context.Context) error {
	s.stopSampling()
	<-s.sampled // a sample under way is bounded by its round trips' timeout
	err := s.srv.Shutdown(ctx)
	if serr := <-s.serve; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return errors.Join(err, s.mp.Shutdown(ctx))
}

// Option starts a Server on addr, unless addr is empty, and returns the
// runtime option that publishes a runtime's metrics to it (one that does
// nothing for an empty addr), the server (nil for an empty addr) and a
// stop function that closes it (or does nothing).
func Option(addr string) (agent.Option, *Server, func(context.Context) error, error) {
	if addr == "" {
		return func(*agent.Runtime) {}, nil, func(context.Context) error { return nil }, nil
	}
	s, err := Start(addr)
	if err != nil {
		return nil, nil, nil, err
	}
	opts := s.Options()
	return func(rt *agent.Runtime) {
		for _, o := range opts {
			o(rt)
		}
	}, s, s.Close, nil
}
