package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/evolvekit/evolve/examples/mailer/internal/clients"
	"github.com/evolvekit/evolve/examples/mailer/internal/scale"
	"github.com/evolvekit/evolve/mtls"
	"github.com/evolvekit/evolve/remote"
)

// config is what the command line asks for: a campaign (the master), or,
// with -worker, a worker for the campaign at -master.
type config struct {
	worker bool        // run as a worker
	listen string      // where this process listens: the master for its workers, a worker for its master
	tls    tlsFiles    // the PEM files of the mutual TLS between master and workers (mtls.Load)
	creds  *tls.Config // loaded from tls; nil for none

	// The master's.
	n         int           // emails to send
	rate      float64       // emails a second
	workers   int           // worker processes the master starts
	slots     int           // emails each worker sends at once (also a worker's)
	killAfter int           // SIGKILL the first worker after this many deliveries; 0 never
	autoscale string        // MIN:MAX: keep between MIN and MAX workers, as the stage wants; "" for a fixed -workers
	clients   string        // NAME:EMAILS[:WEIGHT],...: the campaigns of several clients; "" for one
	plan      *clients.Plan // the clients' emails, once read
	least     int           // MIN and MAX of autoscale, once read
	most      int
	joinAfter int           // start one more worker after this many deliveries; 0 never
	wait      time.Duration // how long emails wait while no worker is registered
	log       string        // the campaign log; "" for a new temporary file
	metrics   string        // where to serve the agents' metrics; "" for nowhere

	state           string // the durable queue's directory; "" for none
	killMasterAfter int    // SIGKILL the master after this many deliveries, with state; 0 never
	role            string // with state: "mail" or "master", the processes the campaign starts
	relay           string // the mail server's URL, for -role master

	// A worker's.
	items  bool   // the master's emails come from a durable queue (-state)
	master string // the master's address
	name   string // the worker's name in receipts and on the mail server
}

// tlsFiles are the files of -tls-ca, -tls-cert and -tls-key.
type tlsFiles struct{ ca, cert, key string }

// args returns the flags that name the files, none for none.
func (f tlsFiles) args() []string {
	if f == (tlsFiles{}) {
		return nil
	}
	return []string{"-tls-ca", f.ca, "-tls-cert", f.cert, "-tls-key", f.key}
}

// defaults returns the configuration of a bare `mailer`; killAfter and
// joinAfter follow -n and -workers unless set (see parseFlags).
func defaults() config {
	return config{listen: "127.0.0.1:0", n: 20000, rate: 4000, workers: 3, slots: 8, wait: 2 * time.Minute}
}

// Bounds of the flags' values.
const (
	maxEmails  = 10_000_000
	maxRate    = 1_000_000
	maxWorkers = 64
	maxSlots   = 1000
)

// usageText is what -h prints.
const usageText = `usage: mailer [flags]
       mailer -worker -master ADDR [-slots N] [-name NAME] [-listen ADDR]
       add -tls-ca FILE -tls-cert FILE -tls-key FILE to either, across machines

Sends a newsletter of -n emails through a chain of agents: a rate agent at
-rate emails a second, a remote stage whose workers are other processes
that POST each email to a mail server, and a buffer agent that writes the
workers' receipts to the campaign log in batches. The mail server is a fake
one on 127.0.0.1 (with TLS, on the host of -listen), started by the master:
it keeps every email by its Message-ID and refuses one it has already
delivered. While no worker is registered and emails wait, a line says so,
how to start one, and when those in the stage fail for want of one (-wait).

The master starts -workers worker processes (this program again, with
-worker). After -kill-after deliveries it kills the first with SIGKILL
while the mail server is taking an email from it, and after -join-after
deliveries it starts one more. At the end it prints the emails sent, the
items requeued, the duplicate results dropped, each worker's counts and the
time taken, and checks that the mail server delivered every email exactly
once and that the campaign log has one receipt for each.

master flags:
  -n N              emails to send (default 20000)
  -rate R           emails a second; fractions allowed (default 4000)
  -workers N        worker processes to start; 0 to start none and wait for
                    workers started by hand (default 3)
  -autoscale MIN:MAX
                    start MIN workers, then start and stop them, between MIN
                    and MAX, as the stage says it wants (a line per change);
                    not with -workers or -state
  -clients NAME:EMAILS[:WEIGHT],...
                    the campaigns of several clients, each posted by a
                    goroutine of its own, in place of -n: the rate agent and
                    the remote stage share their tokens and workers among the
                    clients with emails waiting by weight (1 by default), and
                    a line a second says each client's share of the emails
                    sent; not with -n or -state
  -slots N          emails each worker sends at once (default 8)
  -kill-after N     SIGKILL the first worker after N emails are delivered; 0
                    for never (default: -n / 4, or 0 with -workers 0)
  -join-after N     start one more worker after N emails are delivered; 0
                    for never (default: -n / 2, or 0 with -workers 0)
  -wait D           how long emails wait while no worker is registered,
                    before they fail (default 2m)
  -listen ADDR      where workers reach the master (default 127.0.0.1:0, a
                    free port; the address is printed); off the loopback only
                    with the TLS flags, and the mail server listens on its
                    host too
  -log FILE         the campaign log, one receipt a line, emptied first if it
                    exists (default: a new file in the temporary directory)
  -metrics ADDR     serve the agents' metrics at http://ADDR/metrics, for
                    Prometheus (host:port; port 0 picks one)
  -state DIR        keep the emails to send in a durable queue in DIR, and
                    run the mail server, the master and the workers as
                    processes of their own; the campaign log is
                    DIR/campaign.ndjson. Run again on the same DIR, it
                    goes on where the last run stopped, or reports a
                    campaign already done
  -kill-master-after N
                    with -state: SIGKILL the master after N emails are
                    delivered, and start it again on the same state and
                    address; the workers rejoin it (default 0, never)

worker flags:
  -worker           work for a master instead
  -master ADDR      the master's address, as it prints it
  -slots N          emails to send at once (default 8)
  -name NAME        the worker's name in receipts (default: worker-PID)
  -listen ADDR      where the master answers the worker (default 127.0.0.1:0)
  -items            the master runs with -state: emails come as durable items

flags of both:
  -tls-ca FILE, -tls-cert FILE, -tls-key FILE
                    mutual TLS between the master and its workers, and to the
                    mail server: the CA that signs every process's certificate
                    (PEM), this process's certificate, which names the host of
                    its -listen (IP SAN for an IP), and its key. The workers
                    the master starts get the same files, and listen on its
                    host; a worker on another machine gives its own
                    certificate and key, and -listen its own HOST:0
`

// flagError is a command line that cannot be run: a bad flag, or a value out
// of range.
type flagError struct{ err error }

// Error returns the error's message.
func (e flagError) Error() string { return e.err.Error() }

// Unwrap returns the error underneath.
func (e flagError) Unwrap() error { return e.err }

// asFlagError returns err as a flagError if it is remote's ErrConfig: a
// setting remote refuses came from a flag (an address that names no host,
// say).
func asFlagError(err error) error {
	if errors.Is(err, remote.ErrConfig) {
		return flagError{err}
	}
	return err
}

// masterOnly and workerOnly name the flags of one role only.
var (
	masterOnly = []string{"n", "rate", "workers", "autoscale", "clients", "kill-after", "join-after", "wait", "log", "state", "kill-master-after", "role", "relay"}
	workerOnly = []string{"master", "name", "items"}
)

// parseFlags reads the command line. For -h it writes the usage to stdout
// and returns flag.ErrHelp; for anything it cannot run it returns a
// flagError naming the flag and the value.
func parseFlags(args []string, stdout io.Writer) (config, error) {
	cfg := defaults()
	fs := flag.NewFlagSet("mailer", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the error is returned, and printed by main
	fs.BoolVar(&cfg.worker, "worker", false, "")
	fs.StringVar(&cfg.listen, "listen", cfg.listen, "")
	fs.IntVar(&cfg.n, "n", cfg.n, "")
	fs.Float64Var(&cfg.rate, "rate", cfg.rate, "")
	fs.IntVar(&cfg.workers, "workers", cfg.workers, "")
	fs.IntVar(&cfg.slots, "slots", cfg.slots, "")
	fs.StringVar(&cfg.autoscale, "autoscale", cfg.autoscale, "")
	fs.StringVar(&cfg.clients, "clients", cfg.clients, "")
	fs.IntVar(&cfg.killAfter, "kill-after", cfg.killAfter, "")
	fs.IntVar(&cfg.joinAfter, "join-after", cfg.joinAfter, "")
	fs.DurationVar(&cfg.wait, "wait", cfg.wait, "")
	fs.StringVar(&cfg.log, "log", cfg.log, "")
	fs.StringVar(&cfg.metrics, "metrics", cfg.metrics, "")
	fs.StringVar(&cfg.master, "master", cfg.master, "")
	fs.StringVar(&cfg.name, "name", cfg.name, "")
	fs.StringVar(&cfg.state, "state", cfg.state, "")
	fs.IntVar(&cfg.killMasterAfter, "kill-master-after", cfg.killMasterAfter, "")
	fs.StringVar(&cfg.role, "role", cfg.role, "")
	fs.StringVar(&cfg.relay, "relay", cfg.relay, "")
	fs.BoolVar(&cfg.items, "items", cfg.items, "")
	fs.StringVar(&cfg.tls.ca, "tls-ca", "", "")
	fs.StringVar(&cfg.tls.cert, "tls-cert", "", "")
	fs.StringVar(&cfg.tls.key, "tls-key", "", "")
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usageText)
		return cfg, err
	}
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	set := given(fs)
	if err == nil {
		err = roles(set, cfg.worker)
	}
	if err == nil {
		cfg, err = cfg.withAutoscale(set)
	}
	if err == nil {
		cfg, err = cfg.withClients(set)
	}
	if err == nil {
		cfg = cfg.withMilestones(set)
		err = cfg.check()
	}
	if err == nil && cfg.tls != (tlsFiles{}) {
		if cfg.creds, err = mtls.Load(cfg.tls.ca, cfg.tls.cert, cfg.tls.key); err != nil {
			err = fmt.Errorf("-tls-ca, -tls-cert, -tls-key: %w", err)
		}
	}
	if err != nil {
		return cfg, flagError{err}
	}
	return cfg, nil
}

// given returns the names of the flags set on the command line.
func given(fs *flag.FlagSet) map[string]bool {
	set := make(map[string]bool)
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// roles refuses a flag of the other role, of those in set: a master flag
// with -worker, or a worker flag without.
func roles(set map[string]bool, worker bool) error {
	if worker {
		for _, name := range masterOnly {
			if set[name] {
				return fmt.Errorf("-%s is a flag of the master, not of -worker", name)
			}
		}
		return nil
	}
	for _, name := range workerOnly {
		if set[name] {
			return fmt.Errorf("-%s needs -worker", name)
		}
	}
	return nil
}

// withAutoscale reads -autoscale MIN:MAX, and starts the master with MIN
// workers; it takes neither -workers nor -state.
func (c config) withAutoscale(set map[string]bool) (config, error) {
	if c.autoscale == "" {
		return c, nil
	}
	var err error
	if c.least, c.most, err = scale.Parse(c.autoscale, maxWorkers); err != nil {
		return c, fmt.Errorf("-autoscale: %w", err)
	}
	if set["workers"] || c.state != "" {
		return c, errors.New("-autoscale starts MIN workers and follows the stage: it takes neither -workers nor -state")
	}
	c.workers = c.least
	return c, nil
}

// withClients reads -clients: the campaign is the clients' emails, -n in
// all; it takes neither -n nor -state.
func (c config) withClients(set map[string]bool) (config, error) {
	if c.clients == "" {
		return c, nil
	}
	cs, err := clients.Parse(c.clients, maxEmails)
	if err != nil {
		return c, fmt.Errorf("-clients: %w", err)
	}
	if set["n"] || c.state != "" {
		return c, errors.New("-clients sends each client's emails: it takes neither -n nor -state")
	}
	c.plan = clients.NewPlan(cs)
	c.n = c.plan.Total()
	return c, nil
}

// withMilestones fills in the defaults of -kill-after and -join-after
// unless set has them: a quarter and a half of -n, when the master starts
// workers of its own, and 0 (never) when it does not.
func (c config) withMilestones(set map[string]bool) config {
	if c.state != "" {
		return c // the master is killed instead
	}
	if c.autoscale != "" {
		return c // the workers come and go already
	}
	if !set["kill-after"] && c.workers > 0 {
		c.killAfter = c.n / 4
	}
	if !set["join-after"] && c.workers > 0 {
		c.joinAfter = c.n / 2
	}
	return c
}

// check reports the first value of c that is out of range.
func (c config) check() error {
	if c.slots < 1 || c.slots > maxSlots {
		return fmt.Errorf("-slots must be between 1 and %d, got %d", maxSlots, c.slots)
	}
	if c.tls != (tlsFiles{}) && (c.tls.ca == "" || c.tls.cert == "" || c.tls.key == "") {
		return errors.New("-tls-ca, -tls-cert and -tls-key go together: the CA that signs every process's certificate, this one's, and its key")
	}
	if c.worker {
		if c.master == "" {
			return errors.New("-worker needs -master ADDR, the address the master prints")
		}
		return nil
	}
	switch {
	case c.n < 1 || c.n > maxEmails:
		return fmt.Errorf("-n must be between 1 and %d, got %d", maxEmails, c.n)
	case !(c.rate > 0 && c.rate <= maxRate):
		return fmt.Errorf("-rate must be above 0 and at most %d, got %v", maxRate, c.rate)
	case c.workers < 0 || c.workers > maxWorkers:
		return fmt.Errorf("-workers must be between 0 and %d, got %d", maxWorkers, c.workers)
	case c.killAfter < 0 || c.killAfter >= c.n:
		return fmt.Errorf("-kill-after must be between 0 and -n - 1 (%d), got %d", c.n-1, c.killAfter)
	case c.killAfter > 0 && c.workers == 0:
		return errors.New("-kill-after kills a worker the master started: it needs -workers 1 or more")
	case c.joinAfter < 0 || c.joinAfter >= c.n:
		return fmt.Errorf("-join-after must be between 0 and -n - 1 (%d), got %d", c.n-1, c.joinAfter)
	case c.wait <= 0:
		return fmt.Errorf("-wait must be above 0, got %v", c.wait)
	case c.killMasterAfter < 0 || c.killMasterAfter >= c.n:
		return fmt.Errorf("-kill-master-after must be between 0 and -n - 1 (%d), got %d", c.n-1, c.killMasterAfter)
	case c.killMasterAfter > 0 && c.state == "":
		return errors.New("-kill-master-after needs -state: the master goes on from its durable queue")
	case c.state != "" && (c.killAfter > 0 || c.joinAfter > 0):
		return errors.New("-kill-after and -join-after do not go with -state, which kills the master instead (-kill-master-after)")
	case c.state != "" && c.tls != (tlsFiles{}):
		return errors.New("-tls-ca, -tls-cert and -tls-key do not go with -state: its processes all run on this machine, over the loopback")
	case c.state != "" && c.log != "":
		return errors.New("-log does not go with -state: the campaign log is in the state directory")
	case c.role != "" && c.role != "mail" && c.role != "master":
		return fmt.Errorf("-role is mail or master, got %q", c.role)
	case c.role == "master" && (c.state == "" || c.relay == ""):
		return errors.New("-role master needs -state and -relay")
	}
	return nil
}
