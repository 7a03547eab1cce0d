package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/evolvekit/evolve/examples/mailer/internal/fleet"
	"github.com/evolvekit/evolve/examples/mailer/internal/mailserver"
	"github.com/evolvekit/evolve/examples/mailer/internal/ndjson"
	"github.com/rs/zerolog"
)

// superviseEvery is how often the supervisor asks the mail server how many
// emails it has delivered.
const superviseEvery = 5 * time.Millisecond

// supervisor runs a campaign with -state: the mail server, the master and
// the workers, each a process of its own (this program again, with -role
// mail, -role master and -worker -items), all of them its children.
type supervisor struct {
	cfg            config
	exe            string // this program
	relay          string // the mail server's URL
	stdout, stderr io.Writer
}

// supervise runs a campaign with -state. The mail server keeps its POSTs
// in the state directory, so that it refuses a repeat of any run's email,
// and its counts take in every run on the state. Unless a master marked
// the campaign done, the supervisor runs the master and the workers until
// the queue is empty (runMaster); then it checks, from the mail server's
// counts of every run, that every email was delivered exactly once, and
// from the campaign log that it holds one receipt for each.
func supervise(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this program to start its processes: %w", err)
	}
	if err := os.MkdirAll(cfg.state, 0o755); err != nil {
		return fmt.Errorf("-state: %w", err)
	}
	s := &supervisor{cfg: cfg, exe: exe, stdout: zerolog.SyncWriter(stdout), stderr: stderr} // the masters' output is copied to stdout too
	_, err = os.Stat(filepath.Join(cfg.state, doneMarker))
	done := err == nil
	mail, err := s.startMail(done)
	if err != nil {
		return err
	}
	defer func() { _ = mail.End() }()
	c, err := mailserver.FetchTotals(ctx, s.relay)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "mailer: mail server (pid %d) at %s; in runs before: %d emails delivered, %d repeats refused\n",
		mail.Pid(), s.relay, c.Before.Delivered, c.Before.Refused)
	if done {
		fmt.Fprintf(stdout, "mailer: the campaign in %s was done already: its queue is empty; nothing to send\n", cfg.state)
	} else if err := s.runMaster(ctx, c.Before.Delivered); err != nil {
		return err
	}
	return s.check()
}

// runMaster starts the master on the state and the workers, and waits for
// the master to empty the queue. Once cfg.killMasterAfter emails are
// delivered, counting the runs before (delivered of them), it kills the
// master with SIGKILL and starts it again on the same state and address:
// a run on a state past that many kills no master.
func (s *supervisor) runMaster(ctx context.Context, delivered int) error {
	addr, err := freeAddress(s.cfg.listen)
	if err != nil {
		return asFlagError(fmt.Errorf("-listen: %w", err))
	}
	master, err := s.startMaster(ctx, addr)
	if err != nil {
		return err
	}
	defer func() { _ = master.End() }() // the last master started
	f, err := fleet.New(addr, s.cfg.slots, []string{"-items"}, s.stderr)
	if err != nil {
		return err
	}
	defer f.Stop()
	for i := 1; i <= s.cfg.workers; i++ {
		if _, err := f.Start(fmt.Sprintf("w%d", i)); err != nil {
			return err
		}
	}
	switch {
	case s.cfg.killMasterAfter > delivered:
		next, err := s.killMaster(ctx, master, addr)
		if err != nil {
			return err
		}
		master = next
	case s.cfg.killMasterAfter > 0:
		fmt.Fprintf(s.stdout, "mailer: the runs before delivered %d emails, past -kill-master-after %d: the master is not killed\n",
			delivered, s.cfg.killMasterAfter)
	}
	select {
	case <-master.Done():
	case <-ctx.Done():
		return errors.New("interrupted")
	}
	if err := master.Err(); err != nil {
		return fmt.Errorf("the master: %w", err)
	}
	f.Wait(endWait)
	return nil
}

// killMaster kills master with SIGKILL once the mail server has delivered
// cfg.killMasterAfter emails, and returns another started on the same
// state and address.
func (s *supervisor) killMaster(ctx context.Context, master *fleet.Child, addr string) (*fleet.Child, error) {
	delivered, err := awaitDeliveries(ctx, s.relay, s.cfg.killMasterAfter, master)
	if err != nil {
		return nil, err
	}
	master.Kill()
	fmt.Fprintf(s.stdout, "mailer: %d emails delivered: killed the master (pid %d) with SIGKILL; starting it again on the same state\n",
		delivered, master.Pid())
	return s.startMaster(ctx, addr)
}

// startMaster starts a master at addr, its output to stdout and stderr,
// and returns once it says its stage runs (masterReady): a worker that
// registers before then is told that no such stage runs, and gives up.
func (s *supervisor) startMaster(ctx context.Context, addr string) (*fleet.Child, error) {
	cmd := exec.Command(s.exe, s.masterArgs(addr)...)
	ready := &readyWriter{w: s.stdout, ready: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = ready, s.stderr
	c, err := fleet.Start(cmd)
	if err != nil {
		return nil, fmt.Errorf("starting the master: %w", err)
	}
	deadline := time.NewTimer(endWait)
	defer deadline.Stop()
	select {
	case <-ready.ready:
		return c, nil
	case <-c.Done():
		return nil, fmt.Errorf("the master ended before its stage ran: %v", c.Err())
	case <-ctx.Done():
		err = errors.New("interrupted")
	case <-deadline.C:
		err = fmt.Errorf("the master at %s did not run its stage within %v", addr, endWait)
	}
	_ = c.End()
	return nil, err
}

// readyWriter passes a master's output on to w, and closes ready once a
// line of it has said that the master's stage runs (masterReady). Only
// the goroutine of exec that copies the output calls Write; the process's
// Wait waits for it.
type readyWriter struct {
	w     io.Writer
	ready chan struct{}
	seen  bool
	line  []byte // the last line, unfinished, until seen
}

// Write writes p to w, looking for masterReady in it until seen.
func (r *readyWriter) Write(p []byte) (int, error) {
	if !r.seen {
		r.line = append(r.line, p...)
		if bytes.Contains(r.line, []byte(masterReady)) {
			r.seen, r.line = true, nil
			close(r.ready)
		} else if i := bytes.LastIndexByte(r.line, '\n'); i >= 0 {
			r.line = r.line[i+1:]
		}
	}
	return r.w.Write(p)
}

// masterArgs returns the command line of a master at addr.
func (s *supervisor) masterArgs(addr string) []string {
	args := []string{"-role", "master", "-state", s.cfg.state, "-relay", s.relay, "-listen", addr,
		"-n", strconv.Itoa(s.cfg.n), "-rate", strconv.FormatFloat(s.cfg.rate, 'g', -1, 64), "-wait", s.cfg.wait.String()}
	if s.cfg.metrics != "" {
		args = append(args, "-metrics", s.cfg.metrics)
	}
	return args
}

// startMail starts the mail server in a process of its own, with its
// journal in the state directory, and sets s.relay to its URL, which it
// prints first. Unless the campaign is done, it listens where it did in the
// runs before, for the emails in the queue name that address, which
// mailAddr keeps for the runs after.
func (s *supervisor) startMail(done bool) (*fleet.Child, error) {
	addrFile := filepath.Join(s.cfg.state, mailAddr)
	addr, err := os.ReadFile(addrFile)
	switch {
	case done || errors.Is(err, fs.ErrNotExist):
		addr = []byte("127.0.0.1:0")
	case err != nil:
		return nil, fmt.Errorf("-state: %w", err)
	}
	cmd := exec.Command(s.exe, "-role", "mail", "-state", s.cfg.state, "-listen", string(addr))
	cmd.Stderr = s.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c, err := fleet.Start(cmd)
	if err != nil {
		return nil, fmt.Errorf("starting the mail server: %w", err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), mailReady)
	if err != nil || !ok {
		return nil, fmt.Errorf("the mail server did not start at %s: %q %v (%v)", addr, line, err, c.End())
	}
	s.relay = url
	if !done {
		if err := os.WriteFile(addrFile, []byte(strings.TrimPrefix(url, "http://")), 0o644); err != nil {
			_ = c.End()
			return nil, fmt.Errorf("-state: %w", err)
		}
	}
	return c, nil
}

// mailReady starts the line the mail server process prints once it
// listens, followed by its URL.
const mailReady = "mailer: mail server at "

// serveMail is the mail server process (-role mail): it serves at
// cfg.listen until ctx ends (SIGTERM), with its journal in the state
// directory, if there is one.
func serveMail(ctx context.Context, cfg config, stdout io.Writer) error {
	journal := ""
	if cfg.state != "" {
		journal = filepath.Join(cfg.state, mailJournal)
	}
	m, err := mailserver.Start(mailserver.Config{Addr: cfg.listen, Journal: journal})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, mailReady+m.URL())
	<-ctx.Done()
	return closeMail(m)
}

// freeAddress returns listen with a free port for port 0, so that the
// master listens at the same address every time it starts.
func freeAddress(listen string) (string, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil || port != "0" {
		return listen, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

// awaitDeliveries waits until the mail server at relay has delivered n
// emails, and returns how many it had then, or an error if the master
// ended first.
func awaitDeliveries(ctx context.Context, relay string, n int, master *fleet.Child) (int, error) {
	tick := time.NewTicker(superviseEvery)
	defer tick.Stop()
	for {
		select {
		case <-master.Done():
			return -1, fmt.Errorf("the master ended before %d emails were delivered: %v", n, master.Err())
		case <-ctx.Done():
			return 0, errors.New("interrupted")
		case <-tick.C:
		}
		c, err := mailserver.FetchTotals(ctx, relay)
		if err != nil {
			return 0, err
		}
		if c.Total.Delivered >= n {
			return c.Total.Delivered, nil
		}
	}
}

// check checks, from the mail server's counts of every run on the state
// and the campaign log, that every email of the campaign was delivered
// exactly once (its Message-ID posted at least once, delivered the first
// time and refused after) and has one receipt in the log (checkOnce), and
// prints what it found.
func (s *supervisor) check() error {
	c, err := mailserver.FetchCounts(context.Background(), s.relay)
	if err != nil {
		return err
	}
	twice := 0
	for _, p := range c.Posts {
		if p > 1 {
			twice++
		}
	}
	fmt.Fprintf(s.stdout, "mail server:     %d emails delivered, %d repeats refused (%d emails sent more than once), in all runs\n", c.Total.Delivered, c.Total.Refused, twice)
	fmt.Fprintf(s.stdout, "                 in this run %d delivered, %d refused; in runs before %d delivered, %d refused\n",
		c.Total.Delivered-c.Before.Delivered, c.Total.Refused-c.Before.Refused, c.Before.Delivered, c.Before.Refused)
	receipts, err := ndjson.Read[receipt]("campaign log", filepath.Join(s.cfg.state, stateLog))
	if err == nil {
		_, err = checkOnce(s.cfg.n, c, receipts)
	}
	if err != nil {
		fmt.Fprintf(s.stdout, "exactly once: FAILED: %v\n", err)
		return fmt.Errorf("check: %w", err)
	}
	fmt.Fprintf(s.stdout, "exactly once: ok\n")
	fmt.Fprintf(s.stdout, "campaign log:    one receipt per email, %d in all: ok\n", len(receipts))
	return nil
}
