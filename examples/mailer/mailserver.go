package main

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

// mailLatency is how long the mail server takes to answer a POST, as a
// relay on the local network might.
const mailLatency = 2 * time.Millisecond

// workerHeader names the worker that sends a POST, for the mail server's
// counts by worker.
const workerHeader = "X-Mailer-Worker"

// The mail server's answers, in a receipt's Outcome.
const (
	outcomeDelivered = "delivered"         // 201 Created: the first POST of this Message-ID
	outcomeRepeat    = "already-delivered" // 200 OK: a repeat, refused
)

// tally is what the mail server took from one worker.
type tally struct {
	delivered, refused int
}

// mailServer is a fake mail server on 127.0.0.1: POST /messages takes an
// email as JSON, and after mailLatency delivers it, unless it has
// delivered an email with the same Message-ID already, which it refuses
// (the idempotency key). It counts every POST by Message-ID and by the
// worker that sent it. It is safe for concurrent use.
type mailServer struct {
	srv   *http.Server
	url   string
	serve chan error // what Serve returned

	// taken, if set, is called after each POST is counted and before it
	// is answered, with the email's Message-ID, the sending worker's name,
	// the emails delivered so far and whether this one was delivered now;
	// it may kill the sender.
	taken func(id, worker string, total int, first bool)

	mu       sync.Mutex
	posts    map[string]int // POSTs by Message-ID
	byWorker map[string]*tally
	total    tally
}

// startMailServer starts a mail server on a free port of 127.0.0.1; taken
// may be nil.
func startMailServer(taken func(id, worker string, total int, first bool)) (*mailServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("mail server: %w", err)
	}
	m := &mailServer{url: "http://" + ln.Addr().String(), serve: make(chan error, 1), taken: taken,
		posts: make(map[string]int), byWorker: make(map[string]*tally)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /messages", m.message)
	mux.HandleFunc("GET /counts", m.countsJSON)
	m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { m.serve <- m.srv.Serve(ln) }() // owned by close, which waits for it
	return m, nil
}

// close stops the server: it stops listening, waits for the requests under
// way and for the serving goroutine.
func (m *mailServer) close(ctx context.Context) error {
	err := m.srv.Shutdown(ctx)
	if serr := <-m.serve; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// message answers POST /messages: 201 for an email delivered, 200 for one
// refused as a repeat, 400 for a body that is not an email.
func (m *mailServer) message(w http.ResponseWriter, r *http.Request) {
	var e email
	if err := json.NewDecoder(r.Body).Decode(&e); err != nil || e.ID == "" {
		http.Error(w, "not an email", http.StatusBadRequest)
		return
	}
	t := time.NewTimer(mailLatency)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
		return
	}
	worker := r.Header.Get(workerHeader)
	first, total := m.record(e.ID, worker)
	if m.taken != nil {
		m.taken(e.ID, worker, total, first)
	}
	code, outcome := http.StatusCreated, outcomeDelivered
	if !first {
		code, outcome = http.StatusOK, outcomeRepeat
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(answer{Outcome: outcome})
}

// answer is the mail server's reply to a POST.
type answer struct {
	Outcome string `json:"outcome"`
}

// record counts a POST of the email id from worker, and reports whether
// it is the first (the email is delivered) and how many emails have been
// delivered.
func (m *mailServer) record(id, worker string) (first bool, total int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.posts[id]++
	first = m.posts[id] == 1
	t := m.byWorker[worker]
	if t == nil {
		t = &tally{}
		m.byWorker[worker] = t
	}
	if first {
		t.delivered++
		m.total.delivered++
	} else {
		t.refused++
		m.total.refused++
	}
	return first, m.total.delivered
}

// mailCounts is a copy of what the mail server has counted.
type mailCounts struct {
	posts    map[string]int
	byWorker map[string]tally
	total    tally
}

// counts returns a copy of the server's counts.
func (m *mailServer) counts() mailCounts {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := mailCounts{posts: make(map[string]int, len(m.posts)), byWorker: make(map[string]tally, len(m.byWorker)), total: m.total}
	for id, n := range m.posts {
		c.posts[id] = n
	}
	for w, t := range m.byWorker {
		c.byWorker[w] = *t
	}
	return c
}

// delivered returns how many emails the server has delivered.
func (m *mailServer) delivered() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.total.delivered
}

// countsJSON answers GET /counts with what the server has counted, for a
// process other than the one it runs in.
// With ?totals, it leaves out the POSTs by Message-ID.
func (m *mailServer) countsJSON(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Has("totals") {
		m.mu.Lock()
		t := m.total
		m.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(countsWire{Delivered: t.delivered, Refused: t.refused})
		return
	}
	c := m.counts()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(countsWire{Posts: c.posts, Delivered: c.total.delivered, Refused: c.total.refused})
}

// countsWire is the mail server's counts as GET /counts answers them.
type countsWire struct {
	Posts     map[string]int `json:"posts"` // POSTs by Message-ID
	Delivered int            `json:"delivered"`
	Refused   int            `json:"refused"`
}
