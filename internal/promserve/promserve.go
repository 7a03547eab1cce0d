// Package promserve serves the metrics of a program's agents to Prometheus:
// an OpenTelemetry meter provider whose reader is the OpenTelemetry
// Prometheus exporter, with the agents' own histograms as a producer, and
// an HTTP server that answers GET /metrics with what it reads. The
// programs of this module start one for their -metrics flag and hand its
// Provider to agent.WithMeterProvider and its Histograms to
// agent.WithHistograms (what Option returns does both).
package promserve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// Server serves the metrics of one meter provider at /metrics.
type Server struct {
	mp    *sdkmetric.MeterProvider
	hist  *agent.Histograms
	srv   *http.Server
	addr  string
	serve chan error // what Serve returned
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
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	s := &Server{
		mp:    sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp)),
		hist:  hist,
		srv:   &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second},
		addr:  ln.Addr().String(),
		serve: make(chan error, 1),
	}
	go func() { s.serve <- s.srv.Serve(ln) }() // owned by Close, which waits for it
	return s, nil
}

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

// Close stops serving, waits for the requests under way and for the
// serving goroutine, and shuts the meter provider down.
func (s *Server) Close(ctx context.Context) error {
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
