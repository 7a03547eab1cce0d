package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// retryPolicy says how a request that gets a 429, a 5xx or no answer at
// all is tried again: after a backoff that doubles from base up to ceiling,
// with jitter, up to attempts requests in all.
type retryPolicy struct {
	attempts      int
	base, ceiling time.Duration
}

// defaultRetry is the loader's retry policy: 8 requests, the last one some
// 5 seconds after the first.
var defaultRetry = retryPolicy{attempts: 8, base: 50 * time.Millisecond, ceiling: 2 * time.Second}

// backoff returns the wait after the attempt-th request failed:
// base·2^(attempt-1), at most the ceiling, of which a random half ("equal
// jitter"), so that requests that failed together do not all come back
// together.
func (p retryPolicy) backoff(attempt int) time.Duration {
	d := p.ceiling
	if attempt < 32 {
		d = min(p.base<<(attempt-1), p.ceiling)
	}
	return d/2 + rand.N(d/2+1)
}

// requestTimeout bounds one request; maxBody the answer read.
const (
	requestTimeout = 10 * time.Second
	maxBody        = 1 << 20
)

// fetcher gets records from the API, retrying what can be retried, and
// counts what it sees. It is safe for concurrent use.
type fetcher struct {
	client *http.Client
	url    string // the API's base URL
	retry  retryPolicy

	fetched      atomic.Int64 // records got
	tooMany      atomic.Int64 // 429s received
	serverErrors atomic.Int64 // 5xx received
	retries      atomic.Int64 // requests made again

	mu     sync.Mutex
	failed map[int]error // records that failed for good, and why
}

// newFetcher returns a fetcher for the API at url that keeps up to
// parallel connections open and retries as p says.
func newFetcher(url string, parallel int, p retryPolicy) *fetcher {
	tr := &http.Transport{MaxIdleConnsPerHost: parallel, MaxConnsPerHost: parallel, IdleConnTimeout: 30 * time.Second}
	return &fetcher{client: &http.Client{Transport: tr}, url: url, retry: p, failed: make(map[int]error)}
}

// close closes the connections kept open.
func (f *fetcher) close() { f.client.CloseIdleConnections() }

// statusError is an answer other than 200 OK.
type statusError struct{ code int }

// Error returns the status, as in "429 Too Many Requests".
func (e statusError) Error() string { return strconv.Itoa(e.code) + " " + http.StatusText(e.code) }

// fetch returns record id, trying again while the failure can be retried
// and attempts are left. A record that fails for good is noted, with why,
// and its error returned.
func (f *fetcher) fetch(ctx context.Context, id int) (record, error) {
	for attempt := 1; ; attempt++ {
		rec, err := f.get(ctx, id)
		if err == nil {
			f.fetched.Add(1)
			return rec, nil
		}
		f.count(err)
		if ctx.Err() != nil {
			return record{}, ctx.Err() // stopped: not a failure of the record
		}
		if !retryable(err) || attempt >= f.retry.attempts {
			err = fmt.Errorf("record %d: %w (request %d of at most %d)", id, err, attempt, f.retry.attempts)
			f.fail(id, err)
			return record{}, err
		}
		f.retries.Add(1)
		if err := sleep(ctx, f.retry.backoff(attempt)); err != nil {
			return record{}, err
		}
	}
}

// get makes one request for record id.
func (f *fetcher) get(ctx context.Context, id int) (record, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url+"/records/"+strconv.Itoa(id), nil)
	if err != nil {
		return record{}, err
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return record{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return record{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return record{}, statusError{resp.StatusCode}
	}
	var rec record
	if err := json.Unmarshal(body, &rec); err != nil {
		return record{}, fmt.Errorf("%w: %q", errAnswer, body)
	}
	if rec.ID != id {
		return record{}, fmt.Errorf("%w: asked for %d, got %d", errAnswer, id, rec.ID)
	}
	return rec, nil
}

// errAnswer is an answer that is not the record asked for.
var errAnswer = errors.New("not the record asked for")

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

// fail notes that record id failed for good.
func (f *fetcher) fail(id int, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed[id] = err
}

// failures returns the records that failed for good, and why.
func (f *fetcher) failures() map[int]error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.failed)
}

// retryable reports whether a request that failed with err may succeed if
// made again: a 429, a 5xx, or no answer (a connection refused or reset, a
// timeout). A 4xx or a wrong answer will not change.
func retryable(err error) bool {
	var se statusError
	if errors.As(err, &se) {
		return se.code == http.StatusTooManyRequests || se.code >= 500
	}
	return !errors.Is(err, errAnswer)
}

// sleep waits for d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
