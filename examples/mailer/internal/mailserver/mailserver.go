// Package mailserver is the mailer example's fake mail server: a net/http
// server on 127.0.0.1 whose POST /messages takes an email as JSON, answers
// after Latency, and delivers an email only the first time it sees its
// Message-ID (the idempotency key): a repeat is answered 200 with
// [Repeat] and counted as refused. It counts every POST by Message-ID and
// by the worker that sent it ([WorkerHeader]), and answers GET /counts
// with its [Counts], for a process other than its own ([FetchCounts]).
package mailserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Latency is how long the mail server takes to answer a POST, as a relay
// on the local network might.
const Latency = 2 * time.Millisecond

// WorkerHeader names the worker that sends a POST, for the counts by
// worker.
const WorkerHeader = "X-Mailer-Worker"

// The mail server's answers, in [Answer].Outcome.
const (
	Delivered = "delivered"         // 201 Created: the first POST of this Message-ID
	Repeat    = "already-delivered" // 200 OK: a repeat, refused
)

// Answer is the mail server's reply to a POST.
type Answer struct {
	Outcome string `json:"outcome"`
}

// Tally is what the mail server delivered and refused.
type Tally struct {
	Delivered int `json:"delivered"`
	Refused   int `json:"refused"`
}

// Counts is a copy of what a mail server has counted.
type Counts struct {
	Posts    map[string]int   `json:"posts,omitempty"`     // POSTs by Message-ID
	ByWorker map[string]Tally `json:"by_worker,omitempty"` // by the WorkerHeader of the POSTs
	Total    Tally            `json:"total"`
}

// Taken, if set, is called after each POST is counted and before it is
// answered, with the email's Message-ID, the sending worker's name, the
// emails delivered so far and whether this one was delivered now; it may
// kill the sender.
type Taken func(id, worker string, total int, first bool)

// Server is a running mail server. It is safe for concurrent use.
type Server struct {
	srv   *http.Server
	url   string
	serve chan error // what Serve returned
	taken Taken

	mu       sync.Mutex
	posts    map[string]int // POSTs by Message-ID
	byWorker map[string]*Tally
	total    Tally
}

// Start starts a mail server on a free port of 127.0.0.1; taken may be
// nil. Close stops it.
func Start(taken Taken) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("mail server: %w", err)
	}
	m := &Server{url: "http://" + ln.Addr().String(), serve: make(chan error, 1), taken: taken,
		posts: make(map[string]int), byWorker: make(map[string]*Tally)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /messages", m.message)
	mux.HandleFunc("GET /counts", m.countsJSON)
	m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { m.serve <- m.srv.Serve(ln) }() // owned by Close, which waits for it
	return m, nil
}

// URL returns the server's URL, http://127.0.0.1:port.
func (m *Server) URL() string { return m.url }

// Close stops the server: it stops listening, waits for the requests under
// way and for the serving goroutine.
func (m *Server) Close(ctx context.Context) error {
	err := m.srv.Shutdown(ctx)
	if serr := <-m.serve; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// message answers POST /messages: 201 for an email delivered, 200 for one
// refused as a repeat, 400 for a body that is not an email.
func (m *Server) message(w http.ResponseWriter, r *http.Request) {
	var e struct {
		ID string `json:"id"` // the email's Message-ID
	}
	if err := json.NewDecoder(r.Body).Decode(&e); err != nil || e.ID == "" {
		http.Error(w, "not an email", http.StatusBadRequest)
		return
	}
	t := time.NewTimer(Latency)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
		return
	}
	worker := r.Header.Get(WorkerHeader)
	first, total := m.record(e.ID, worker)
	if m.taken != nil {
		m.taken(e.ID, worker, total, first)
	}
	code, outcome := http.StatusCreated, Delivered
	if !first {
		code, outcome = http.StatusOK, Repeat
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(Answer{Outcome: outcome})
}

// record counts a POST of the email id from worker, and reports whether
// it is the first (the email is delivered) and how many emails have been
// delivered.
func (m *Server) record(id, worker string) (first bool, total int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.posts[id]++
	first = m.posts[id] == 1
	t := m.byWorker[worker]
	if t == nil {
		t = &Tally{}
		m.byWorker[worker] = t
	}
	if first {
		t.Delivered++
		m.total.Delivered++
	} else {
		t.Refused++
		m.total.Refused++
	}
	return first, m.total.Delivered
}

// Counts returns a copy of the server's counts.
func (m *Server) Counts() Counts {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := Counts{Posts: make(map[string]int, len(m.posts)), ByWorker: make(map[string]Tally, len(m.byWorker)), Total: m.total}
	for id, n := range m.posts {
		c.Posts[id] = n
	}
	for w, t := range m.byWorker {
		c.ByWorker[w] = *t
	}
	return c
}

// Delivered returns how many emails the server has delivered.
func (m *Server) Delivered() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.total.Delivered
}

// countsJSON answers GET /counts with the server's Counts; with ?totals,
// only their Total, which costs no copy of the POSTs by Message-ID.
func (m *Server) countsJSON(w http.ResponseWriter, r *http.Request) {
	var c Counts
	if r.URL.Query().Has("totals") {
		m.mu.Lock()
		c.Total = m.total
		m.mu.Unlock()
	} else {
		c = m.Counts()
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(c)
}

// FetchCounts asks the mail server at url for its Counts.
func FetchCounts(ctx context.Context, url string) (Counts, error) {
	return fetch(ctx, url+"/counts")
}

// FetchTotals asks the mail server at url for its Counts without the
// POSTs by Message-ID and by worker: a cheaper request, to be made often.
func FetchTotals(ctx context.Context, url string) (Counts, error) {
	return fetch(ctx, url+"/counts?totals")
}

// fetch asks for the counts at url.
func fetch(ctx context.Context, url string) (Counts, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Counts{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Counts{}, err
	}
	defer resp.Body.Close()
	var c Counts
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		return Counts{}, fmt.Errorf("the mail server's counts: %w", err)
	}
	return c, nil
}
