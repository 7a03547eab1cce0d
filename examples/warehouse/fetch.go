package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/parallel"
)

// retry is the loader's retry policy, carried out by the parallel agent:
// up to 8 requests for a record, after a backoff of up to 50 ms doubling to
// 2 s (full jitter), for the failures retryable accepts. Each retry spends
// a token of the rate agent in front, as a first request does.
func retry(seed uint64) parallel.Retry {
	return parallel.Retry{Attempts: 8, Backoff: 50 * time.Millisecond, MaxBackoff: 2 * time.Second, If: retryable, Seed: seed}
}

// requestTimeout bounds one request (the parallel agent's Timeout); maxBody
// the answer read.
const (
	requestTimeout = 10 * time.Second
	maxBody        = 1 << 20
)

// fetcher makes one GET for a record, and counts what it sees. It is safe
// for concurrent use.
type fetcher struct {
	client *http.Client
	url    string // the API's base URL

	requests     atomic.Int64 // requests made
	fetched      atomic.Int64 // records got
	tooMany      atomic.Int64 // 429s received
	serverErrors atomic.Int64 // 5xx received
}

// newFetcher returns a fetcher for the API at url that keeps up to
// parallel connections open.
func newFetcher(url string, parallel int) *fetcher {
	tr := &http.Transport{MaxIdleConnsPerHost: parallel, MaxConnsPerHost: parallel, IdleConnTimeout: 30 * time.Second}
	return &fetcher{client: &http.Client{Transport: tr}, url: url}
}

// close closes the connections kept open.
func (f *fetcher) close() { f.client.CloseIdleConnections() }

// statusError is an answer other than 200 OK.
type statusError struct{ code int }

// Error returns the status, as in "429 Too Many Requests".
func (e statusError) Error() string { return strconv.Itoa(e.code) + " " + http.StatusText(e.code) }

// errAnswer is an answer that is not the record asked for.
var errAnswer = errors.New("not the record asked for")

// fetch makes one request for record id: the parallel agent's work. Its
// error names the record; one the API sent a Retry-After with asks the
// agent to wait that long before the next request.
func (f *fetcher) fetch(ctx context.Context, id int) (record, error) {
	f.requests.Add(1)
	rec, after, err := f.get(ctx, id)
	if err != nil {
		f.count(err)
		err = fmt.Errorf("record %d: %w", id, err)
		if after > 0 {
			err = agent.RetryAfter(err, after)
		}
		return record{}, err
	}
	f.fetched.Add(1)
	return rec, nil
}

// get makes one request for record id, and returns the record, or the
// error and the wait the answer's Retry-After asks for.
func (f *fetcher) get(ctx context.Context, id int) (record, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url+"/records/"+strconv.Itoa(id), nil)
	if err != nil {
		return record{}, 0, err
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return record{}, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return record{}, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return record{}, retryAfter(resp.Header), statusError{resp.StatusCode}
	}
	var rec record
	if err := json.Unmarshal(body, &rec); err != nil {
		return record{}, 0, fmt.Errorf("%w: %q", errAnswer, body)
	}
	if rec.ID != id {
		return record{}, 0, fmt.Errorf("%w: asked for %d, got %d", errAnswer, id, rec.ID)
	}
	return rec, 0, nil
}

// retryAfter reads a Retry-After header given in seconds; 0 if there is
// none, or it is not a number of seconds.
func retryAfter(h http.Header) time.Duration {
	s, err := strconv.Atoi(h.Get("Retry-After"))
	if err != nil || s < 0 {
		return 0
	}
	return time.Duration(min(s, 3600)) * time.Second
}

// count counts a 429 or a 5xx.
func (f *fetcher) count(err error) {
	var se statusError
	switch {
	case !errors.As(err, &se):
	case se.code == http.StatusTooManyRequests:
		f.tooMany.Add(1)
	case se.code >= 500:
		f.serverErrors.Add(1)
	}
}

// retryable reports whether a request that failed with err may succeed if
// made again: a 429, a 5xx, or no answer (a connection refused or reset, a
// timeout). A 4xx or a wrong answer will not change, and a request
// cancelled because the load stops is not retried.
func retryable(err error) bool {
	var se statusError
	if errors.As(err, &se) {
		return se.code == http.StatusTooManyRequests || se.code >= 500
	}
	return !errors.Is(err, errAnswer) && !errors.Is(err, context.Canceled)
}
