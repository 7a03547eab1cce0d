package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/examples/mailer/internal/clients"
	"github.com/evolvekit/evolve/examples/mailer/internal/fleet"
	"github.com/evolvekit/evolve/examples/mailer/internal/mailserver"
	"github.com/evolvekit/evolve/examples/mailer/internal/ndjson"
	"github.com/evolvekit/evolve/examples/mailer/internal/scale"
	"github.com/evolvekit/evolve/examples/mailer/internal/starved"
	"github.com/evolvekit/evolve/internal/promserve"
	"github.com/evolvekit/evolve/rate"
	"github.com/evolvekit/evolve/remote"
	"github.com/rs/zerolog"
)

// Settings of the chain.
const (
	logBatch  = 500                    // receipts per batch written to the campaign log
	logLinger = 250 * time.Millisecond // how long a partial batch waits
	lease     = 10 * time.Second       // how long a worker may hold an email
	endWait   = fleet.EndWait          // how long workers get to end once the campaign has
)

// campaign is one run of the master: the mail server, the remote node its
// workers reach, the worker processes, and what the chain's sink counts.
type campaign struct {
	cfg   config
	out   io.Writer // stdout, safe for concurrent use
	mail  *mailserver.Server
	node  *remote.Node
	fleet *fleet.Fleet
	log   *ndjson.Writer[receipt]
	scale *scale.Scaler   // with -autoscale
	share *clients.Shares // with -clients
	starv *starved.Watch  // says when emails wait with no worker

	victim  atomic.Pointer[fleet.Worker] // the worker to kill
	killed  atomic.Bool                  // the kill has begun
	joining atomic.Bool                  // the join has been asked for
	join    chan struct{}                // asks for the worker that joins

	mu       sync.Mutex
	receipts map[string]int // logged, by worker
	logged   int            // receipts in the campaign log
	batches  int            // batches written
}

// outcome is what the campaign did, for the report.
type outcome struct {
	sent    int           // receipts logged
	batches int           // batches written to the campaign log
	elapsed time.Duration // from the first email posted to the last receipt logged
	status  remote.Status // the remote stage's, at the end
	mail    mailserver.Counts
	workers []workerLine
	scaled  string   // how the workers went, with -autoscale
	clients []string // each client's line, with -clients
	err     error    // the chain's
}

// runCampaign runs the master: it starts the mail server, the remote node
// and the workers, sends cfg.n emails through the chain, kills and starts
// workers as cfg says, and prints what happened to stdout, progress to
// stderr. It returns the chain's error, or that of the check.
func runCampaign(ctx context.Context, cfg config, stdout, stderr io.Writer) (err error) {
	stdout, stderr = zerolog.SyncWriter(stdout), zerolog.SyncWriter(stderr)
	c := &campaign{cfg: cfg, out: stdout, join: make(chan struct{}, 1), receipts: make(map[string]int)}
	if c.node, err = remote.Listen(remote.NodeConfig{Addr: cfg.listen, TLS: cfg.creds}); err != nil {
		return asFlagError(fmt.Errorf("-listen: %w", err))
	}
	defer c.node.Close()
	// With TLS, the mail server and the workers started here listen on the
	// master's host, which its certificate names, and speak mutual TLS.
	mail, extra := mailserver.Config{Taken: c.taken}, []string(nil)
	if cfg.creds != nil {
		host, _, _ := net.SplitHostPort(c.node.Addr())
		mail.Addr, mail.TLS = net.JoinHostPort(host, "0"), cfg.creds
		extra = append(cfg.tls.args(), "-listen", net.JoinHostPort(host, "0"))
	}
	if c.log, err = ndjson.Create[receipt]("campaign log", cfg.log, "mailer-*.ndjson"); err != nil {
		return err
	}
	defer func() { err = errors.Join(err, c.log.Close()) }()
	if c.mail, err = mailserver.Start(mail); err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeMail(c.mail)) }()
	if c.fleet, err = fleet.New(c.node.Addr(), cfg.slots, extra, stderr); err != nil {
		return err
	}
	defer c.fleet.Stop()
	c.starv = &starved.Watch{Out: stdout, Wait: cfg.wait, Command: c.fleet.Command}
	if cfg.workers == 0 {
		c.starv.Idle() // the header says so
	}
	if cfg.autoscale != "" {
		c.scale = scale.New(cfg.least, cfg.most, &scaled{c: c, next: cfg.least}, names(cfg.least), stdout, time.Now())
	}
	o, err := c.run(ctx, stderr)
	if err != nil {
		return err
	}
	c.fleet.Wait(endWait)
	o.workers = c.workerLines()
	o.mail = c.mail.Counts()
	if c.scale != nil {
		o.scaled = c.scale.Summary()
	}
	if c.share != nil {
		o.clients = c.share.Summary(o.elapsed)
	}
	report(stdout, cfg, c.log.Path, o)
	return errors.Join(failure(o.err, o.status), verify(stdout, cfg.n, c.log.Path, o))
}

// closeMail stops the mail server.
func closeMail(m *mailserver.Server) error {
	ctx, cancel := context.WithTimeout(context.Background(), endWait)
	defer cancel()
	return m.Close(ctx)
}

// run runs the chain on a runtime of its own and returns what it did: an
// error only if the campaign could not run, or ctx ended; the chain's own
// error (an email that failed for good) is in the outcome.
func (c *campaign) run(ctx context.Context, stderr io.Writer) (outcome, error) {
	metrics, srv, stopMetrics, err := promserve.Option(c.cfg.metrics)
	if err != nil {
		return outcome{}, fmt.Errorf("-metrics: %w", err)
	}
	defer stopMetrics(context.Background())
	if srv != nil {
		fmt.Fprintf(c.out, "mailer: the agents' metrics are at %s\n", srv.URL())
	}
	rt := agent.NewRuntime(metrics, agent.WithLogger(zerolog.New(stderr).Level(zerolog.WarnLevel).With().Timestamp().Logger()))
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), endWait)
		defer cancel()
		_ = rt.Shutdown(sctx)
	}()
	stages, err := c.chain()
	if err != nil {
		return outcome{}, err
	}
	chain, err := compose.Start(rt, stages, c.logBatch, compose.WithName("mailer"))
	if err != nil {
		return outcome{}, err
	}
	promserve.Watch(srv, chain)
	c.header()
	if err := c.startWorkers(); err != nil {
		return outcome{}, stop(chain, err)
	}
	start := time.Now()
	if c.cfg.plan != nil {
		c.share = clients.NewShares(c.cfg.plan, start)
	}
	watchers := []func(quit <-chan struct{}){
		func(quit <-chan struct{}) { c.joiner(quit) },
		func(quit <-chan struct{}) { c.progress(stderr, chain, start, quit) },
		func(quit <-chan struct{}) { c.watchStarved(chain, quit) }}
	if c.scale != nil {
		watchers = append(watchers, c.scale.Run)
	}
	stopWatching := background(watchers...)
	err = c.post(ctx, chain)
	elapsed := time.Since(start)
	stopWatching()
	c.starv.Flush()
	if ctx.Err() != nil {
		return outcome{}, fmt.Errorf("interrupted after %v: %d of %d emails sent", elapsed.Round(time.Millisecond), c.sent(), c.cfg.n)
	}
	c.mu.Lock()
	o := outcome{sent: c.logged, batches: c.batches, elapsed: elapsed, err: err}
	c.mu.Unlock()
	st, serr := chain.Status(context.Background())
	if serr != nil {
		return o, serr
	}
	o.status, _ = st.Agents[1].Detail.(remote.Status)
	return o, nil
}

// chain returns the campaign's chain of stages, left to right: the rate
// agent, the remote stage whose workers send the emails, and the buffer
// agent that writes their receipts to the campaign log.
func (c *campaign) chain() (agent.Stage[email, []receipt], error) {
	rc := rate.Config[email]{Name: "rate", Rate: c.cfg.rate, Burst: burst(c.cfg.rate)}
	if c.cfg.plan != nil {
		// The backlog waits in the rate agent, whose tokens go to the
		// clients with emails waiting by weight: the stage after it takes
		// an email only as a worker can start it.
		rc.Key, rc.Weights = client, c.cfg.plan.Weights()
	}
	limit, err := rate.Stage(rc)
	if err != nil {
		return agent.Stage[email, []receipt]{}, err
	}
	var onWant func(string, int)
	if c.scale != nil {
		onWant = func(_ string, n int) { c.scale.Want(n) }
	}
	cfg := remote.Config[email]{
		Node: c.node, Name: stageName, Unordered: true, Lease: lease, TagWait: c.cfg.wait, OnWant: onWant,
		DeadLetters: c.dead}
	if c.cfg.plan != nil {
		// The workers' turns are the clients' too: what a worker hands
		// back, the stage hands out again in the clients' turns.
		cfg.Key, cfg.Weights = client, c.cfg.plan.Weights()
	}
	send, err := remote.Stage[email, receipt](cfg)
	if err != nil {
		return agent.Stage[email, []receipt]{}, err
	}
	write, err := buffer.Stage(buffer.Config[receipt]{Name: "log", Size: logBatch, MaxWait: logLinger}, c.log.Write)
	if err != nil {
		return agent.Stage[email, []receipt]{}, err
	}
	return compose.Pipe3(limit, send, write), nil
}

// client is the key of an email: its client.
func client(e email) string { return e.Client }

// burst returns the rate agent's burst at rate: a twentieth of a second's
// worth of emails, at least 1.
func burst(rate float64) int { return max(1, int(rate/20)) }

// header prints what the campaign is about to do.
func (c *campaign) header() {
	fmt.Fprintf(c.out, "mailer: mail server at %s: answers a POST in %v, delivers each Message-ID once and refuses repeats\n",
		c.mail.URL(), mailserver.Latency)
	if c.cfg.plan != nil {
		fmt.Fprintf(c.out, "mailer: %d emails of %d clients, each posting its own: %s -> %g a second and workers of the master at %s, shared by client -> campaign log %s, in batches of %d\n",
			c.cfg.n, len(c.cfg.plan.Weights()), c.cfg.plan, c.cfg.rate, c.node.Addr(), c.log.Path, logBatch)
	} else {
		fmt.Fprintf(c.out, "mailer: %d emails at %g a second -> workers of the master at %s -> campaign log %s, in batches of %d\n",
			c.cfg.n, c.cfg.rate, c.node.Addr(), c.log.Path, logBatch)
	}
	if c.cfg.creds != nil {
		fmt.Fprintln(c.out, "mailer: over mutual TLS; a worker on another machine gives its own -tls-cert and -tls-key, and -listen its own HOST:0")
	}
	if c.cfg.workers == 0 {
		fmt.Fprintf(c.out, "mailer: waiting for workers: %s\n", c.fleet.Command())
		return
	}
	fmt.Fprintf(c.out, "mailer: starting %d workers of %d slots; another can join with: %s\n",
		c.cfg.workers, c.cfg.slots, c.fleet.Command())
	if c.scale != nil {
		fmt.Fprintf(c.out, "mailer: then as many as the stage wants, %d to %d\n", c.cfg.least, c.cfg.most)
	}
}

// names returns the names of the workers the master starts first, w1 to
// w<n>.
func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("w%d", i+1)
	}
	return out
}

// startWorkers starts the workers w1 to w<cfg.workers>; w1 is the one to
// kill.
func (c *campaign) startWorkers() error {
	for i, name := range names(c.cfg.workers) {
		p, err := c.fleet.Start(name)
		if err != nil {
			return err
		}
		if i == 0 {
			c.victim.Store(p)
		}
	}
	return nil
}

// scaled is the fleet as the autoscaler starts and stops it: the workers
// it starts are named on from w<next+1>. Only the autoscaler's goroutine
// calls it.
type scaled struct {
	c    *campaign
	next int
}

// Start starts the next worker.
func (s *scaled) Start() (string, error) {
	s.next++
	name := fmt.Sprintf("w%d", s.next)
	_, err := s.c.fleet.Start(name)
	return name, err
}

// Stop asks the worker named to leave, and waits for it.
func (s *scaled) Stop(name string) error {
	for _, p := range s.c.fleet.All() {
		if p.Name == name {
			return p.End()
		}
	}
	return fmt.Errorf("no worker %s", name)
}

// post posts every email to the chain, closes it and waits for the last
// receipt to be logged. It returns the chain's error, or ctx.Err() if ctx
// ends first, having stopped the chain.
func (c *campaign) post(ctx context.Context, chain agent.Handle[email, compose.Status]) error {
	if err := c.postAll(ctx, chain); err != nil {
		return stop(chain, err)
	}
	chain.Close()
	if err := chain.Wait(ctx); err != nil {
		if ctx.Err() != nil {
			return stop(chain, err)
		}
		return err
	}
	return nil
}

// postAll posts every email to the chain, in order; with -clients each
// client's from a goroutine of its own, as clients do, since the chain
// lets each client fill only its part of its queue.
func (c *campaign) postAll(ctx context.Context, chain agent.Handle[email, compose.Status]) error {
	if c.cfg.plan == nil {
		for i := 1; i <= c.cfg.n; i++ {
			if err := chain.Post(ctx, newEmail(i, c.mail.URL())); err != nil {
				return err
			}
		}
		return nil
	}
	var wg sync.WaitGroup
	errs := make([]error, len(c.cfg.plan.Ranges()))
	for k, r := range c.cfg.plan.Ranges() {
		wg.Go(func() {
			for i := r[0]; i <= r[1]; i++ {
				e := newEmail(i, c.mail.URL())
				e.Client = c.cfg.plan.Of(i)
				if err := chain.Post(ctx, e); err != nil {
					errs[k] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// stop stops the chain and returns err.
func stop(chain agent.Handle[email, compose.Status], err error) error {
	ctx, cancel := context.WithTimeout(context.Background(), endWait)
	defer cancel()
	if serr := chain.Stop(ctx); serr != nil {
		return fmt.Errorf("%w (stopping: %v)", err, serr)
	}
	return err
}

// logBatch is the chain's sink: it counts a batch written to the campaign
// log.
func (c *campaign) logBatch(batch []receipt) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.batches++
	c.logged += len(batch)
	for _, r := range batch {
		c.receipts[r.Worker]++
	}
	if c.share != nil {
		now := time.Now()
		for _, r := range batch {
			c.share.Sent(c.cfg.plan.Of(emailNumber(r.ID)), now)
		}
	}
}

// sent returns the receipts logged so far.
func (c *campaign) sent() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.logged
}

// taken is the mail server's hook, called as it takes each POST, before
// it answers. Once cfg.killAfter emails are delivered, the next email
// delivered from the first worker gets it killed with SIGKILL there and
// then: the email is delivered, and the worker never hears so, nor reports
// it. Once cfg.joinAfter emails are delivered, it asks for one more worker.
func (c *campaign) taken(id, worker string, total int, first bool) {
	if v := c.victim.Load(); c.cfg.killAfter > 0 && total >= c.cfg.killAfter && first && v != nil && worker == v.Name &&
		c.killed.CompareAndSwap(false, true) {
		c.fleet.Kill(v)
		fmt.Fprintf(c.out, "mailer: %d emails delivered: killed worker %s (pid %d) with SIGKILL as the mail server took %s from it\n",
			total, v.Name, v.Pid(), id)
	}
	if c.cfg.joinAfter > 0 && total >= c.cfg.joinAfter && c.joining.CompareAndSwap(false, true) {
		c.join <- struct{}{}
	}
}

// joiner starts one more worker when taken asks for it, until quit is
// closed.
func (c *campaign) joiner(quit <-chan struct{}) {
	select {
	case <-quit:
		return
	case <-c.join:
	}
	name := fmt.Sprintf("w%d", c.cfg.workers+1)
	p, err := c.fleet.Start(name)
	if err != nil {
		fmt.Fprintf(c.out, "mailer: %v\n", err)
		return
	}
	fmt.Fprintf(c.out, "mailer: %d emails delivered: started worker %s (pid %d)\n", c.mail.Delivered(), name, p.Pid())
}

// progress writes a line to w every second until quit is closed.
func (c *campaign) progress(w io.Writer, chain agent.Handle[email, compose.Status], start time.Time, quit <-chan struct{}) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-quit:
			return
		case <-tick.C:
		}
		workers := "?"
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		st, err := chain.Status(ctx)
		cancel()
		if err == nil {
			if rs, ok := st.Agents[1].Detail.(remote.Status); ok {
				workers = fmt.Sprint(len(rs.Workers))
			}
		}
		fmt.Fprintf(w, "mailer: %v: %d of %d emails delivered, %d receipts logged, %s workers\n",
			time.Since(start).Round(100*time.Millisecond), c.mail.Delivered(), c.cfg.n, c.sent(), workers)
		if line := c.shares(); line != "" {
			fmt.Fprintf(c.out, "mailer: %v: %s\n", time.Since(start).Round(100*time.Millisecond), line)
		}
	}
}

// shares returns the line of each client's share since the last one, ""
// without -clients.
func (c *campaign) shares() string {
	if c.share == nil {
		return ""
	}
	return c.share.Line()
}

// dead is the remote stage's DeadLetters: it counts the emails that failed
// for want of a worker.
func (c *campaign) dead(d agent.DeadLetter) {
	if errors.Is(d.Err, remote.ErrNoWorker) {
		c.starv.NoWorker()
	}
}

// watchStarved tells the starved watch the remote stage's status every
// starved.Every until quit is closed.
func (c *campaign) watchStarved(chain agent.Handle[email, compose.Status], quit <-chan struct{}) {
	tick := time.NewTicker(starved.Every)
	defer tick.Stop()
	for {
		select {
		case <-quit:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		st, err := chain.Status(ctx)
		cancel()
		if err != nil {
			continue
		}
		if rs, ok := st.Agents[1].Detail.(remote.Status); ok {
			c.starv.Note(starved.Stage{Workers: len(rs.Workers), Waiting: rs.Waiting}, c.sent()+rs.Failed < c.cfg.n, time.Now())
		}
	}
}

// background runs each function in a goroutine of its own until the
// returned stop is called, which closes their quit channel and waits for
// them.
func background(fs ...func(quit <-chan struct{})) (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for _, f := range fs {
		wg.Go(func() { f(quit) })
	}
	return func() {
		close(quit)
		wg.Wait()
	}
}
