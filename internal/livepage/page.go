package livepage

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/prometheus/client_golang/prometheus"
)

// The page's defaults: a sample every tenth of a second, shares and rates
// over the last five seconds, the metrics read once a second, and the
// finished chains kept on the page.
const (
	Period     = 100 * time.Millisecond
	Window     = 5 * time.Second
	gatherGap  = time.Second
	keptOver   = 4
	askTimeout = time.Second
)

// Page samples the chains it watches and serves what it saw. Its zero
// value is not usable: make one with [New]. It is safe for concurrent
// use; a sample costs a Status round trip per stage and, once a second, a
// gathering of the metrics.
type Page struct {
	gather prometheus.Gatherer

	mu       sync.Mutex
	chains   []*watched
	readings []reading // oldest first, over the window and a gap more
	last     time.Time // the instant of the last sample
}

// watched is a chain the page watches, and what it saw of it.
type watched struct {
	name   string
	status func(context.Context) (any, error)
	done   <-chan struct{}

	over   bool
	err    string
	parts  []part
	stamps [][]stamp // by stage, oldest first, over the window
}

// stamp is a stage's shares at a sample, and a remote stage's workers'
// work then.
type stamp struct {
	at      time.Time
	shares  Shares
	workers []workerStamp
}

// workerStamp is what a remote stage's worker was doing at a sample.
type workerStamp struct {
	id                                 uint64
	slots, inFlight, hung, fail, moved int
}

// New returns a page that reads the rates and waits of the agents from g
// (the registry the program's metrics are served from), or shows none if
// g is nil.
func New(g prometheus.Gatherer) *Page { return &Page{gather: g} }

// Watch adds h to the chains p shows: a compose chain's handle, each of
// its Agents a stage, or the handle of one agent, a chain of one stage.
// The page asks h for its Status at each sample until h is done, then
// shows its final status; it keeps the last few chains done.
func Watch[I, S any](p *Page, h agent.Handle[I, S]) {
	w := &watched{name: h.Name(), done: h.Done(), status: func(ctx context.Context) (any, error) { return h.Status(ctx) }}
	p.mu.Lock()
	p.chains = append(p.chains, w)
	p.mu.Unlock()
}

// Run samples every period until ctx is done.
func (p *Page) Run(ctx context.Context, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			p.Sample(ctx, now)
		}
	}
}

// Sample asks every chain still running for its status, and notes each
// stage's phase at instant now; it reads the metrics if it last did a
// second or more before now. [Page.Run] calls it; a test may call it
// with instants of its own.
func (p *Page) Sample(ctx context.Context, now time.Time) {
	p.mu.Lock()
	var chains []*watched // those still running: a chain done is asked no more
	for _, w := range p.chains {
		if !w.over {
			chains = append(chains, w)
		}
	}
	gather := p.gather != nil && (len(p.readings) == 0 || now.Sub(p.readings[len(p.readings)-1].at) >= gatherGap)
	p.mu.Unlock()
	type answer struct {
		parts []part
		err   error
		over  bool
	}
	answers := make([]answer, len(chains))
	for i, w := range chains {
		select {
		case <-w.done:
			answers[i].over = true
		default:
		}
		actx, cancel := context.WithTimeout(ctx, askTimeout)
		st, err := w.status(actx)
		cancel()
		answers[i] = answer{parts: partsOf(w.name, st), err: err, over: answers[i].over}
	}
	var r reading
	var rerr error
	if gather {
		r, rerr = read(p.gather, now)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = now
	if gather && rerr == nil {
		p.readings = append(p.readings, r)
		for len(p.readings) > 2 && now.Sub(p.readings[1].at) >= Window {
			p.readings = p.readings[1:]
		}
	}
	for i, w := range chains {
		if !w.over { // another Sample may have seen it end meanwhile
			w.note(now, answers[i].parts, answers[i].err, answers[i].over)
		}
	}
	p.forget()
}

// note records what w's status said at instant now.
func (w *watched) note(now time.Time, parts []part, err error, over bool) {
	w.err = ""
	if err != nil {
		w.err = err.Error()
	}
	if len(parts) != len(w.stamps) {
		w.stamps = make([][]stamp, len(parts))
	}
	w.parts, w.over = parts, over
	for i, pt := range parts {
		ph := append(w.stamps[i], stamp{at: now, shares: Weigh(pt.sample()), workers: workerStamps(pt.detail.Workers)})
		for len(ph) > 0 && now.Sub(ph[0].at) >= Window {
			ph = ph[1:]
		}
		w.stamps[i] = ph
	}
}

// forget drops the oldest chains done while more than keptOver are.
func (p *Page) forget() {
	over := 0
	for _, w := range p.chains {
		if w.over {
			over++
		}
	}
	p.chains = slices.DeleteFunc(p.chains, func(w *watched) bool {
		if w.over && over > keptOver {
			over--
			return true
		}
		return false
	})
}

// workerStamps notes what the workers ws were doing.
func workerStamps(ws []detailWorker) []workerStamp {
	if len(ws) == 0 {
		return nil
	}
	out := make([]workerStamp, len(ws))
	for i, w := range ws {
		out[i] = workerStamp{id: w.ID, slots: w.Slots, inFlight: w.InFlight, hung: w.Hung, fail: w.Failed, moved: w.Moved}
	}
	return out
}
