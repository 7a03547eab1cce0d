package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/promserve"
)

// config is what the command line asks for.
type config struct {
	rate       float64       // keys per second through the rate agent
	parallel   parallelism   // keys worked on at once
	buffer     int           // keys per line
	path       string        // the output file
	workDelay  time.Duration // each key's work
	flushDelay time.Duration // the wait before a line is appended
	metrics    string        // where to serve the agents' metrics; "" for nowhere

	meter      agent.Option      // publishes to the metrics server; nil for none (not a flag)
	metricsURL string            // where the metrics server answers; "" for none (not a flag)
	live       *promserve.Server // shows the chain on its live page; nil for none (not a flag)
}

// defaults returns the configuration of a bare `typewriter`.
func defaults() config {
	return config{
		rate:       2,
		parallel:   parallelism{n: 2},
		buffer:     10,
		path:       "typewriter.txt",
		workDelay:  time.Second,
		flushDelay: 5 * time.Second,
	}
}

// maxBuffer bounds -b: the buffer agent's input queue holds two lines, and
// a queue costs a little memory and time per slot when it starts.
const maxBuffer = 100_000

// parallelism is the -p flag: a limit of at least 1, or auto.
type parallelism struct {
	n    int
	auto bool
}

// String returns the flag's value as it is spelled on the command line.
func (p *parallelism) String() string {
	if p.auto {
		return "auto"
	}
	return strconv.Itoa(p.n)
}

// Set parses "auto" or a whole number.
func (p *parallelism) Set(s string) error {
	if s == "auto" {
		*p = parallelism{auto: true}
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New(`want a whole number or "auto"`)
	}
	*p = parallelism{n: n}
	return nil
}

// keyUse is what a key does on a terminal.
type keyUse struct {
	key    string // the key, as -h and the README name it
	does   string // what it does: -h, the README's table and the package doc say it in these words
	footer string // the footer's name for it: for finish and abort, the first word of does
}

// keyUses are the keys on a terminal, in the order -h, the README and the
// footer give them.
var keyUses = []keyUse{
	{"any printable key", "sends it down the chain (all but ?)", "type to send"},
	{"Enter", "logs every agent's status in the log pane, in chain order", "Enter: log status"},
	{"Ctrl-D or Esc", "finish: stops taking keys, waits until every key typed is in the file, exits 0", "Ctrl-D/Esc: finish"},
	{"Ctrl-C twice", "abort: drops at once what the chain holds, exits 130", "Ctrl-C ×2: abort"},
	{"?", "shows or hides the legend: what each word and figure on the screen means (Esc hides it too)", "?: legend"},
}

const usageHead = `usage: typewriter [flags] [< input]

Every key typed goes through a chain of agents: a rate agent, a parallel
agent that works on each key, and a buffer agent that makes lines of keys
and appends them to a file. On a terminal it shows the chain at work;
with input piped in, every character but newline is a key.

flags:
  -r, --rate-limit N       keys per second let through (default 2; fractions allowed)
  -p, --parallel-limit N   keys worked on at once, or auto to let it learn (default 2)
  -b, --buffer-size N      keys per line in the file (default 10)
  -f, --file-path PATH     output file, created or truncated at start (default typewriter.txt)
      --work-delay D       how long the work on each key takes (default 1s)
      --flush-delay D      wait before each line is appended (default 5s)
      --metrics ADDR       serve the agents' metrics at http://ADDR/metrics, for
                           Prometheus, and a live page of the chain at
                           http://ADDR/ (host:port; port 0 picks one)

keys on a terminal:
`

// usageText is what -h prints: usageHead, then keyUses, each what it does
// wrapped to 80 columns.
var usageText = usageHead + keysText(2, 22, 80)

// keysText lists keyUses, a key a line indented by indent, what it does
// from column at, wrapped at width columns.
func keysText(indent, at, width int) string {
	var b strings.Builder
	for _, k := range keyUses {
		line := strings.Repeat(" ", indent) + k.key
		for _, word := range strings.Fields(k.does) {
			switch {
			case len(line) < at:
				line += strings.Repeat(" ", at-len(line)) + word
			case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width:
				b.WriteString(line + "\n")
				line = strings.Repeat(" ", at) + word
			default:
				line += " " + word
			}
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// parseFlags reads the command line. On a bad flag or value it writes what
// is wrong and the usage to stderr and returns an error; for -h it writes
// the usage and returns flag.ErrHelp.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	cfg := defaults()
	fs := flag.NewFlagSet("typewriter", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usageText) }
	for _, name := range []string{"r", "rate-limit"} {
		fs.Float64Var(&cfg.rate, name, cfg.rate, "")
	}
	for _, name := range []string{"p", "parallel-limit"} {
		fs.Var(&cfg.parallel, name, "")
	}
	for _, name := range []string{"b", "buffer-size"} {
		fs.IntVar(&cfg.buffer, name, cfg.buffer, "")
	}
	for _, name := range []string{"f", "file-path"} {
		fs.StringVar(&cfg.path, name, cfg.path, "")
	}
	fs.DurationVar(&cfg.workDelay, "work-delay", cfg.workDelay, "")
	fs.DurationVar(&cfg.flushDelay, "flush-delay", cfg.flushDelay, "")
	fs.StringVar(&cfg.metrics, "metrics", cfg.metrics, "")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	err := cfg.check()
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err != nil {
		fmt.Fprintf(stderr, "typewriter: %v\n", err)
		fs.Usage()
	}
	return cfg, err
}

// check reports the first value of c that is out of range.
func (c config) check() error {
	switch {
	case !(c.rate > 0) || math.IsInf(c.rate, 0):
		return fmt.Errorf("-r must be a positive number of keys per second, got %v", c.rate)
	case !c.parallel.auto && c.parallel.n < 1:
		return fmt.Errorf("-p must be at least 1 or auto, got %d", c.parallel.n)
	case c.buffer < 1 || c.buffer > maxBuffer:
		return fmt.Errorf("-b must be between 1 and %d, got %d", maxBuffer, c.buffer)
	case c.path == "":
		return errors.New("-f must name a file")
	case c.workDelay < 0:
		return fmt.Errorf("--work-delay must not be negative, got %v", c.workDelay)
	case c.flushDelay < 0:
		return fmt.Errorf("--flush-delay must not be negative, got %v", c.flushDelay)
	}
	return nil
}
