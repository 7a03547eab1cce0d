package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/url"
	"slices"
	"time"

	"github.com/evolvekit/evolve/internal/loopback"
	"github.com/evolvekit/evolve/mtls"
	"github.com/evolvekit/evolve/parallel"
)

// config is what the command line asks for.
type config struct {
	records  int     // records to load, ids 1 to records
	rate     float64 // requests a second the loader makes
	apiRate  float64 // requests a second the API lets through; 0 means rate
	parallel int     // GETs at once
	batch    int     // records per file
	out      string  // directory of the batch files; "" for a new temporary one
	state    string  // directory of the durable state (batch files and queue); "" for none
	fail     float64 // share of the requests let through that the API fails with 503
	metrics  string  // where to serve the agents' metrics to Prometheus; "" for nowhere
	seed     uint64  // of the API's failures and the retries' jitter

	api       string   // the base URL of an API elsewhere; "" to start one
	apiListen string   // where the API started listens
	listen    string   // where the embedded queue lets other processes in; "" for nowhere
	join      string   // the URL of the queue another warehouse serves; "" to serve one's own
	tls       tlsFiles // the PEM files of the queue's mutual TLS (mtls.Load)

	retry     parallel.Retry // not a flag
	tlsConfig *tls.Config    // loaded from tls; nil for none
	joinWait  time.Duration  // how long a joiner waits for the queue to come up; not a flag
}

// tlsFiles are the files of -tls-ca, -tls-cert and -tls-key.
type tlsFiles struct{ ca, cert, key string }

// defaults returns the configuration of a bare `warehouse`.
func defaults() config {
	return config{records: 2000, rate: 200, parallel: 8, batch: 100, fail: 0.02, seed: 1, retry: retry(1), apiListen: "127.0.0.1:0", joinWait: 30 * time.Second}
}

// Bounds of the flags' values.
const (
	maxRecords  = 10_000_000
	maxRate     = 100_000
	maxParallel = 1000
	maxBatch    = 1_000_000
)

// usageText is what -h prints.
const usageText = `usage: warehouse [flags]

Loads records 1 to -records from an HTTP API (which it starts on
127.0.0.1, unless -api) into files of -batch records each, through a rate
agent, a parallel agent that retries, and a buffer agent; prints what it
did (the goal: no 429) and checks the files. See go doc for more.

flags:
  -records N    records to load (default 2000)
  -rate R       requests a second the loader makes, or with -state or -join
                all the processes on the queue together (default 200)
  -api-rate R   requests a second the API lets through (default: -rate; set it
                lower to see 429s and retries)
  -parallel N   GETs at once (default 8)
  -batch N      records per file (default 100)
  -fail P       share of the requests the API fails with 503, from 0 to 1
                (default 0.02)
  -metrics ADDR serve the agents' metrics at http://ADDR/metrics, for
                Prometheus (host:port; port 0 picks one)
  -out DIR      where to write the files; created if need be, and must not hold
                batch files already (default: a new temporary directory)
  -state DIR    keep the load in DIR, so that a run killed at any moment and
                run again with the same flags resumes: the files go in
                DIR/batches, the ids still to load in a durable queue in
                DIR/queue (NATS JetStream, embedded), with -rate a limit kept
                there (a run again must pass the same)
  -api URL      use the API at URL instead of starting one; not with
                -api-rate, -fail or -api-listen
  -api-listen ADDR  where the API started listens (default 127.0.0.1:0)
  -listen ADDR  with -state, let other processes -join the queue at ADDR
                (host:port, port 0 picks one; off the loopback only with the
                TLS flags), and print the command for them
  -join URL     load from the queue another warehouse serves at URL, from the
                API at -api, into -state DIR (resumable) or -out DIR, where its
                dead letters go too (default: a new temporary directory);
                it waits up to 30s for that warehouse to serve
  -tls-ca FILE, -tls-cert FILE, -tls-key FILE
                with -listen or -join, mutual TLS on the queue's connections:
                the CA that signs every process's certificate (PEM), this
                process's certificate, which names the -listen host, and key

A fleet: each process takes ids as it can and writes files of its own;
-rate is their rate together. The serving process fills the queue before
it listens, and ends once the queue is empty, every id acknowledged by the
process that loaded it, and its joiners have left (up to 10s after). See
go doc for the commands of three on one machine, and their check.

usage: warehouse check -records N [-rework R] DIR...

Checks the files of a load's processes (the -state or -out DIR of each)
together, with a line per DIR: every id from 1 to N is there, but the dead
letters, which are in none; no other id; and at most R copies in all beyond
the first of each id. R is 0 by default: without a crash, each record is
loaded once. After crashes, it is the sum of the bounds each crashed
process printed ("a crash of this process would load again at most B").
`

// flagError is a command line that cannot be run: a bad flag, or a value out
// of range.
type flagError struct{ error }

// Unwrap returns the error underneath.
func (e flagError) Unwrap() error { return e.error }

// parseFlags reads the command line. For -h it writes the usage to stdout
// and returns flag.ErrHelp; for anything it cannot run it returns a
// flagError naming the flag and the value.
func parseFlags(args []string, stdout io.Writer) (config, error) {
	cfg := defaults()
	fs := flag.NewFlagSet("warehouse", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the error is returned, and printed by main
	fs.IntVar(&cfg.records, "records", cfg.records, "")
	fs.Float64Var(&cfg.rate, "rate", cfg.rate, "")
	fs.Float64Var(&cfg.apiRate, "api-rate", cfg.apiRate, "")
	fs.IntVar(&cfg.parallel, "parallel", cfg.parallel, "")
	fs.IntVar(&cfg.batch, "batch", cfg.batch, "")
	fs.StringVar(&cfg.out, "out", cfg.out, "")
	fs.StringVar(&cfg.state, "state", cfg.state, "")
	fs.Float64Var(&cfg.fail, "fail", cfg.fail, "")
	fs.StringVar(&cfg.metrics, "metrics", cfg.metrics, "")
	fs.StringVar(&cfg.api, "api", cfg.api, "")
	fs.StringVar(&cfg.apiListen, "api-listen", cfg.apiListen, "")
	fs.StringVar(&cfg.listen, "listen", cfg.listen, "")
	fs.StringVar(&cfg.join, "join", cfg.join, "")
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
	set := map[string]bool{} // the flags given
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err == nil {
		err = cfg.check(set)
	}
	if err == nil && cfg.tls != (tlsFiles{}) {
		if cfg.tlsConfig, err = mtls.Load(cfg.tls.ca, cfg.tls.cert, cfg.tls.key); err != nil {
			err = fmt.Errorf("-tls-ca, -tls-cert, -tls-key: %w", err)
		}
	}
	if err != nil {
		return cfg, flagError{err}
	}
	if cfg.apiRate == 0 {
		cfg.apiRate = cfg.rate
	}
	if cfg.join != "" {
		cfg.records = 0 // the serving process's
	}
	return cfg, nil
}

// check reports the first value of c that is out of range, or that does
// not go with another flag of those set on the command line.
func (c config) check(set map[string]bool) error {
	host, _, herr := net.SplitHostPort(c.listen)
	ip, secure := net.ParseIP(host), c.tls != (tlsFiles{})
	apiHost, _, aerr := net.SplitHostPort(c.apiListen) // the API speaks in the clear
	switch {
	case c.records < 1 || c.records > maxRecords:
		return fmt.Errorf("-records must be between 1 and %d, got %d", maxRecords, c.records)
	case !validRate(c.rate):
		return fmt.Errorf("-rate must be above 0 and at most %d, got %v", maxRate, c.rate)
	case c.apiRate != 0 && !validRate(c.apiRate):
		return fmt.Errorf("-api-rate must be above 0 and at most %d, got %v", maxRate, c.apiRate)
	case c.parallel < 1 || c.parallel > maxParallel:
		return fmt.Errorf("-parallel must be between 1 and %d, got %d", maxParallel, c.parallel)
	case c.batch < 1 || c.batch > maxBatch:
		return fmt.Errorf("-batch must be between 1 and %d, got %d", maxBatch, c.batch)
	case !(c.fail >= 0 && c.fail <= 1):
		return fmt.Errorf("-fail must be between 0 and 1, got %v", c.fail)
	case c.state != "" && c.out != "":
		return errors.New("-state and -out do not go together: with -state the files are in DIR/batches")
	case c.api != "" && !validURL(c.api, "http", "https"):
		return fmt.Errorf("-api must be an http:// or https:// URL with a host, got %q", c.api)
	case c.join != "" && !validURL(c.join, "nats", "tls"):
		return fmt.Errorf("-join must be a nats:// or tls:// URL with a host, as the serving warehouse prints it, got %q", c.join)
	case c.listen != "" && c.state == "":
		return errors.New("-listen needs -state: it lets other processes into the queue kept there")
	case c.listen != "" && c.join != "":
		return errors.New("-listen and -join do not go together: a process serves its queue or joins another's")
	case aerr != nil || !loopback.Is(apiHost):
		return fmt.Errorf("-api-listen must be host:port on the loopback, got %q", c.apiListen)
	case c.api != "" && (set["api-rate"] || set["fail"] || set["api-listen"]):
		return errors.New("-api-rate, -fail and -api-listen configure the API the program starts: not with -api, which uses another")
	case c.join != "" && c.api == "":
		return errors.New("-join needs -api: a joiner sends to the API of the warehouse it joins, which prints the URL")
	case c.join != "" && set["records"]:
		return errors.New("-records does not go with -join: the serving warehouse fills the queue")
	case secure && (c.tls.ca == "" || c.tls.cert == "" || c.tls.key == ""):
		return errors.New("-tls-ca, -tls-cert and -tls-key go together: the CA that signs every process's certificate, this one's, and its key")
	case secure && c.listen == "" && c.join == "":
		return errors.New("-tls-ca, -tls-cert and -tls-key secure the queue's connections: with -listen or -join")
	case validURL(c.join, "tls") && !secure:
		return fmt.Errorf("-join %s needs -tls-ca, -tls-cert and -tls-key: the serving warehouse speaks TLS", c.join)
	case c.listen != "" && herr != nil:
		return fmt.Errorf("-listen must be host:port, got %q: %v", c.listen, herr)
	case c.listen != "" && (host == "" || ip != nil && ip.IsUnspecified()):
		return fmt.Errorf("-listen must name the host the joiners dial, as the URL printed for them does, got %q", c.listen)
	case c.listen != "" && !loopback.Is(host) && !secure:
		return fmt.Errorf("-listen off the loopback needs -tls-ca, -tls-cert and -tls-key: the queue's connections would be in the clear, got %q", c.listen)
	}
	return nil
}

// validURL reports whether s is a URL of one of the schemes, with a host.
func validURL(s string, schemes ...string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Host != "" && slices.Contains(schemes, u.Scheme)
}

// validRate reports whether r is a rate the flags accept.
func validRate(r float64) bool { return r > 0 && r <= maxRate && !math.IsNaN(r) }
