// Package mailserver is the mailer example's fake mail server: a net/http
// server on 127.0.0.1 whose POST /messages takes an email as JSON, answers
// after Latency, and delivers an email only the first time it sees its
// Message-ID (the idempotency key): a repeat is answered 200 with
// [Repeat] and counted as refused. It counts every POST by Message-ID and
// by the worker that sent it ([WorkerHeader]), and answers GET /counts
// with its [Counts], for a process other than its own ([FetchCounts]).
//
// With a journal, a file, it keeps there the Message-ID of every POST, one
// a line, before it answers, and starts from those of the runs before: it
// refuses the repeat of an email a run before delivered, as a real relay
// would, and counts every run together.
package mailserver

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
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

// Counts is a copy of what a mail server has counted. Posts and Total
// count the runs before too, which Before counts alone; ByWorker counts
// this run only.
type Counts struct {
	Posts    map[string]int   `json:"posts,omitempty"`     // POSTs by Message-ID
	ByWorker map[string]Tally `json:"by_worker,omitempty"` // by the WorkerHeader of the POSTs
	Total    Tally            `json:"total"`
	Before   Tally            `json:"before"` // read from the journal
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
	before   Tally
	journal  *os.File // nil for none
}

// Config is what Start takes. Its zero value is a server on a free port of
// 127.0.0.1, with no journal and no hook.
type Config struct {
	Addr    string // host:port to listen at; "" for 127.0.0.1:0
	Journal string // the journal's path (the package doc says what it is for); "" for none
	Taken   Taken  // nil for none
	// TLS, when not nil, makes the server speak HTTPS, with the mutual TLS
	// that mtls.Load makes: only a client whose certificate its
	// authorities signed gets through. Its URL is then https://.
	TLS *tls.Config
}

// Start starts a mail server as cfg says. Close stops it.
func Start(cfg Config) (*Server, error) {
	m := &Server{serve: make(chan error, 1), taken: cfg.Taken, posts: make(map[string]int), byWorker: make(map[string]*Tally)}
	if err := m.openJournal(cfg.Journal); err != nil {
		return nil, fmt.Errorf("mail server: journal: %w", err)
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("mail server: %w", err), m.closeJournal())
	}
	m.url = "http://" + ln.Addr().String()
	if cfg.TLS != nil {
		ln = tls.NewListener(ln, cfg.TLS.Clone())
		m.url = "https://" + ln.Addr().String()
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /messages", m.message)
	mux.HandleFunc("GET /counts", m.countsJSON)
	m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { m.serve <- m.srv.Serve(ln) }() // owned by Close, which waits for it
	return m, nil
}

// URL returns the server's URL, such as http://127.0.0.1:port.
func (m *Server) URL() string { return m.url }

// Close stops the server: it stops listening, waits for the requests under
// way and for the serving goroutine, and closes the journal.
func (m *Server) Close(ctx context.Context) error {
	err := m.srv.Shutdown(ctx)
	if serr := <-m.serve; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return errors.Join(err, m.closeJournal())
}

// message answers POST /messages: 201 for an email delivered, 200 for one
// refused as a repeat, 400 for a body that is not an email, 500 for one
// the journal could not keep.
func (m *Server) message(w http.ResponseWriter, r *http.Request) {
	var e struct {
		ID string `json:"id"` // the email's Message-ID
	}
	if err := json.NewDecoder(r.Body).Decode(&e); err != nil || e.ID == "" || strings.ContainsAny(e.ID, "\r\n") {
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
	first, total, err := m.record(e.ID, worker)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
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

// record keeps a POST of the email id from worker in the journal and
// counts it, and reports whether it is the first (the email is delivered)
// and how many emails have been delivered. A POST the journal cannot keep
// is an error, and not counted: the worker tries again.
func (m *Server) record(id, worker string) (first bool, total int, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.keep(id); err != nil {
		return false, 0, err
	}
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
	return first, m.total.Delivered, nil
}

// Counts returns a copy of the server's counts.
func (m *Server) Counts() Counts {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := Counts{Posts: make(map[string]int, len(m.posts)), ByWorker: make(map[string]Tally, len(m.byWorker)),
		Total: m.total, Before: m.before}
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
// only their Total and Before, which cost no copy of the POSTs by
// Message-ID.
func (m *Server) countsJSON(w http.ResponseWriter, r *http.Request) {
	var c Counts
	if r.URL.Query().Has("totals") {
		m.mu.Lock()
		c.Total, c.Before = m.total, m.before
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
