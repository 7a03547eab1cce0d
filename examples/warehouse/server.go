package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	xrate "golang.org/x/time/rate" // aliased: package rate here is evolve's
)

// apiConfig is how the API behaves.
type apiConfig struct {
	listen  string        // host:port on the loopback, port 0 for a free one
	records int           // ids 1 to records exist
	rate    float64       // requests a second the API lets through
	latency time.Duration // how long it takes to answer a record
	faults  faults
}

// faults are the requests the API fails once its rate limit let them
// through, so that a failed request counts against the limit as any other:
// status returns the status it answers the attempt-th request for id with,
// or 0 to serve it. It is called for one request at a time.
type faults struct {
	status func(id, attempt int) int
	about  string // says which requests fail, for the program's output
}

// randomFaults fails each request with 503 Service Unavailable with
// probability p, drawn from a generator seeded with seed.
func randomFaults(p float64, seed uint64) faults {
	r := rand.New(rand.NewPCG(seed, 0x503))
	return faults{
		status: func(int, int) int {
			if p > 0 && r.Float64() < p {
				return http.StatusServiceUnavailable
			}
			return 0
		},
		about: fmt.Sprintf("fails %g%% of the requests it lets through with 503", 100*p),
	}
}

// burst returns the API's burst at rate: a fifth of a second's worth of
// requests, and at least 2.
func burst(rate float64) int { return max(2, int(math.Ceil(rate/5))) }

// api is an HTTP server on 127.0.0.1 that serves records at GET
// /records/{id}, no faster than its rate limit (429 Too Many Requests
// beyond it, with Retry-After: 1), each after its latency, with the
// failures its faults ask for. It counts what it answers, and the most
// requests it received in any one second. It is safe for concurrent use.
type api struct {
	cfg   apiConfig
	lim   *xrate.Limiter
	srv   *http.Server
	url   string
	serve chan error // what Serve returned

	mu       sync.Mutex
	attempts map[int]int // requests seen, by id
	recent   []time.Time // when the requests of the last second came
	peak     int         // the most requests in any one second

	requests, served, limited, failed atomic.Int64
}

// startAPI starts the API at cfg.listen.
func startAPI(cfg apiConfig) (*api, error) {
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return nil, fmt.Errorf("api: %w", err)
	}
	a := &api{cfg: cfg, lim: xrate.NewLimiter(xrate.Limit(cfg.rate), burst(cfg.rate)),
		url: "http://" + ln.Addr().String(), serve: make(chan error, 1), attempts: make(map[int]int)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /records/{id}", a.record)
	a.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { a.serve <- a.srv.Serve(ln) }() // owned by close, which waits for it
	return a, nil
}

// close stops the API: it stops listening, waits for the requests under
// way and for the serving goroutine.
func (a *api) close(ctx context.Context) error {
	err := a.srv.Shutdown(ctx)
	if serr := <-a.serve; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// record answers GET /records/{id}.
func (a *api) record(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil || id < 1 || id > a.cfg.records {
		http.Error(w, "no such record", http.StatusNotFound)
		return
	}
	a.requests.Add(1)
	attempt := a.attempt(id, time.Now())
	if !a.lim.Allow() {
		a.limited.Add(1)
		w.Header().Set("Retry-After", "1")
		http.Error(w, "rate limit exceeded", http.StatusTooManyRequests)
		return
	}
	if code := a.fault(id, attempt); code != 0 {
		a.failed.Add(1)
		http.Error(w, http.StatusText(code), code)
		return
	}
	t := time.NewTimer(a.cfg.latency)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(recordFor(id)); err == nil {
		a.served.Add(1)
	}
}

// attempt counts one more request for id, come at instant at, and returns
// how many there have been for id.
func (a *api) attempt(id int, at time.Time) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.attempts[id]++
	i := 0
	for i < len(a.recent) && at.Sub(a.recent[i]) >= time.Second {
		i++
	}
	a.recent = append(a.recent[i:], at)
	a.peak = max(a.peak, len(a.recent))
	return a.attempts[id]
}

// fault returns the status the faults answer the attempt-th request for id
// with, or 0.
func (a *api) fault(id, attempt int) int {
	if a.cfg.faults.status == nil {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.faults.status(id, attempt)
}

// busiest returns the most requests the API received in any one second.
func (a *api) busiest() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.peak
}

// record is what the API answers for one id, and what each line of a batch
// file holds.
type record struct {
	ID    int    `json:"id"`
	SKU   string `json:"sku"`
	Name  string `json:"name"`
	Stock int    `json:"stock"`
}

// recordFor returns the record the API keeps under id.
func recordFor(id int) record {
	return record{ID: id, SKU: fmt.Sprintf("SKU-%07d", id), Name: fmt.Sprintf("item %d", id), Stock: id * 7919 % 1000}
}
