package worker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"time"
)

// A worker is wedged when every one of its slots has run one task for
// longer than the master's lease: the master has taken those tasks back,
// and gives the worker nothing, since it has no slot to run anything in;
// only a restart of the process frees them, as work that ignores its
// context never returns. The actor looks at its slots once a heartbeat:
// the task a slot runs, and since when it has seen it run, which falls
// short of the truth by a heartbeat at most. Health says what it found;
// with Config.EndWhenWedged, Run ends with ErrWedged.

// running is what the actor saw of one slot: 1 + the item its work ran
// on, or 0, and since when it has seen it.
type running struct {
	item  uint64
	since time.Time
}

// checkWedged looks at the slots at instant now, notes whether the worker
// is wedged, says so once as it becomes so or stops being so, and ends the
// worker if it is told to.
func (w *worker[I, O]) checkWedged(now time.Time) {
	if w.seen == nil {
		w.seen = make([]running, len(w.live))
	}
	for i := range w.live {
		if v := w.live[i].Load(); v != w.seen[i].item {
			w.seen[i] = running{item: v, since: now}
		}
	}
	items, wedged := hung(now, w.seen, w.session.Lease())
	was := w.wedged.Load() != nil
	switch {
	case wedged && !was:
		why := fmt.Sprintf("every slot has run one task for longer than the master's lease (%v): items %v", w.session.Lease(), items)
		w.wedged.Store(&why)
		w.cfg.Log.Error().Str("master", w.cfg.Master).Uints64("items", items).Dur("lease", w.session.Lease()).
			Msg("remote: the worker is wedged: every slot has run one task for longer than the master's lease")
		if w.cfg.EndWhenWedged {
			select {
			case w.ended <- fmt.Errorf("%w: %s", ErrWedged, why):
			default:
			}
		}
	case !wedged && was:
		w.wedged.Store(nil)
		w.cfg.Log.Warn().Str("master", w.cfg.Master).Msg("remote: the worker is no longer wedged: a slot came back")
	}
}

// hung returns the items of slots seen at now, in order, and whether every
// slot has run its task for longer than lease: never for a lease of 0 (not
// told yet), nor while a slot is idle.
func hung(now time.Time, seen []running, lease time.Duration) ([]uint64, bool) {
	if lease <= 0 || len(seen) == 0 {
		return nil, false
	}
	items := make([]uint64, 0, len(seen))
	for _, s := range seen {
		if s.item == 0 || now.Sub(s.since) <= lease {
			return nil, false
		}
		items = append(items, s.item-1)
	}
	slices.Sort(items)
	return items, true
}

// serveHealth serves the worker's health at addr until Run ends, if addr
// is not empty: GET /healthz answers 200 and "ok", or 503 and why the
// worker is wedged, for a liveness probe (Kubernetes' httpGet, say) that
// restarts it. It returns the function that stops the server and waits
// for it.
func (w *worker[I, O]) serveHealth(addr string) (func(), error) {
	if addr == "" {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("remote: the worker's health cannot listen at %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(rw http.ResponseWriter, _ *http.Request) {
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if why := w.wedged.Load(); why != nil {
			rw.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(rw, "wedged: %s\n", *why)
			return
		}
		fmt.Fprintln(rw, "ok")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			w.cfg.Log.Error().Err(err).Str("addr", addr).Msg("remote: the worker's health stopped serving")
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		_ = srv.Close()
		<-done
	}, nil
}
