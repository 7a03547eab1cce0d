package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/evolvekit/evolve/examples/mailer/internal/mailserver"
)

// superviseEvery is how often the supervisor asks the mail server how many
// emails it has delivered.
const superviseEvery = 5 * time.Millisecond

// supervise runs a campaign with -state: it starts the mail server, the
// master and the workers, each a process of its own (this program again,
// with -role mail, -role master and -worker), kills the master with
// SIGKILL once cfg.killMasterAfter emails are delivered and starts it again
// on the same state and address, waits for the master to empty the queue,
// and checks from the mail server's counts that every email was delivered
// exactly once, and from the campaign log that it holds one receipt for
// each.
func supervise(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this program to start its processes: %w", err)
	}
	mail, relay, err := startMailProcess(exe, stderr)
	if err != nil {
		return err
	}
	defer func() { _ = mail.end() }()
	addr, err := freeAddress(cfg.listen)
	if err != nil {
		return asFlagError(fmt.Errorf("-listen: %w", err))
	}
	fmt.Fprintf(stdout, "mailer: mail server (pid %d) at %s; master at %s with the queue in %s\n", mail.pid, relay, addr, cfg.state)
	masterArgs := []string{"-role", "master", "-state", cfg.state, "-relay", relay, "-listen", addr,
		"-n", strconv.Itoa(cfg.n), "-rate", strconv.FormatFloat(cfg.rate, 'g', -1, 64), "-wait", cfg.wait.String()}
	if cfg.metrics != "" {
		masterArgs = append(masterArgs, "-metrics", cfg.metrics)
	}
	master, err := startMaster(ctx, exe, masterArgs, addr, stdout, stderr)
	if err != nil {
		return err
	}
	f := &fleet{exe: exe, master: addr, slots: cfg.slots, extra: []string{"-items"}, stderr: stderr}
	defer f.stop()
	for i := 1; i <= cfg.workers; i++ {
		if _, err := f.start(fmt.Sprintf("w%d", i)); err != nil {
			_ = master.end()
			return err
		}
	}
	if cfg.killMasterAfter > 0 {
		delivered, err := awaitDeliveries(ctx, relay, cfg.killMasterAfter, master)
		if err != nil {
			_ = master.end()
			return err
		}
		master.kill()
		fmt.Fprintf(stdout, "mailer: %d emails delivered: killed the master (pid %d) with SIGKILL; starting it again on the same state\n",
			delivered, master.pid)
		if master, err = startMaster(ctx, exe, masterArgs, addr, stdout, stderr); err != nil {
			return err
		}
	}
	select {
	case <-master.done:
	case <-ctx.Done():
		_ = master.end()
		return errors.New("interrupted")
	}
	if master.err != nil {
		return fmt.Errorf("the master: %w", master.err)
	}
	f.wait(endWait)
	return errors.Join(checkDelivered(stdout, relay, cfg.n), checkStateLog(stdout, filepath.Join(cfg.state, stateLog), cfg.n))
}

// startMaster starts the master with args, its output to stdout and
// stderr, and returns once it listens at addr, so that the workers started
// then reach it.
func startMaster(ctx context.Context, exe string, args []string, addr string, stdout, stderr io.Writer) (*child, error) {
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	c, err := startChild(cmd)
	if err != nil {
		return nil, fmt.Errorf("starting the master: %w", err)
	}
	deadline := time.Now().Add(endWait)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			return c, conn.Close()
		}
		select {
		case <-c.done:
			return nil, fmt.Errorf("the master ended before it listened: %v", c.err)
		case <-ctx.Done():
			_ = c.end()
			return nil, errors.New("interrupted")
		case <-time.After(superviseEvery):
		}
		if time.Now().After(deadline) {
			_ = c.end()
			return nil, fmt.Errorf("the master did not listen at %s within %v", addr, endWait)
		}
	}
}

// startMailProcess starts the mail server in a process of its own, and
// returns it and its URL, which it prints first.
func startMailProcess(exe string, stderr io.Writer) (*child, string, error) {
	cmd := exec.Command(exe, "-role", "mail")
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	c, err := startChild(cmd)
	if err != nil {
		return nil, "", fmt.Errorf("starting the mail server: %w", err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), mailReady)
	if err != nil || !ok {
		return nil, "", fmt.Errorf("the mail server did not start: %q %v (%v)", line, err, c.end())
	}
	return c, url, nil
}

// mailReady starts the line the mail server process prints once it
// listens, followed by its URL.
const mailReady = "mailer: mail server at "

// serveMail is the mail server process (-role mail): it serves until ctx
// ends (SIGTERM).
func serveMail(ctx context.Context, stdout io.Writer) error {
	m, err := mailserver.Start(nil)
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
func awaitDeliveries(ctx context.Context, relay string, n int, master *child) (int, error) {
	tick := time.NewTicker(superviseEvery)
	defer tick.Stop()
	for {
		select {
		case <-master.done:
			return -1, fmt.Errorf("the master ended before %d emails were delivered: %v", n, master.err)
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

// checkDelivered checks from the mail server's counts that every email of
// the campaign was delivered exactly once: each Message-ID posted at least
// once, delivered the first time and refused after.
func checkDelivered(w io.Writer, relay string, n int) error {
	c, err := mailserver.FetchCounts(context.Background(), relay)
	if err != nil {
		return err
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if c.Posts[messageID(i)] == 0 {
			missing = append(missing, messageID(i))
		}
	}
	twice := 0
	for _, p := range c.Posts {
		if p > 1 {
			twice++
		}
	}
	fmt.Fprintf(w, "mail server:     %d emails delivered, %d repeats refused (%d emails sent more than once)\n", c.Total.Delivered, c.Total.Refused, twice)
	if len(missing) > 0 || c.Total.Delivered != n || len(c.Posts) != n {
		fmt.Fprintf(w, "exactly once: FAILED\n")
		return fmt.Errorf("%d of %d emails never reached the mail server (%s), %d delivered, %d Message-IDs seen",
			len(missing), n, strings.Join(missing[:min(len(missing), 5)], ", "), c.Total.Delivered, len(c.Posts))
	}
	fmt.Fprintf(w, "exactly once: ok\n")
	return nil
}

// checkStateLog checks that the campaign log at path holds exactly one
// receipt for each of the campaign's n emails.
func checkStateLog(w io.Writer, path string, n int) error {
	receipts, err := readLog(path)
	if err != nil {
		fmt.Fprintf(w, "campaign log:    FAILED\n")
		return err
	}
	count := make(map[string]int, n)
	for _, r := range receipts {
		count[r.ID]++
	}
	var missing, twice []string
	for i := 1; i <= n; i++ {
		switch id := messageID(i); {
		case count[id] == 0:
			missing = append(missing, id)
		case count[id] > 1:
			twice = append(twice, id)
		}
	}
	if len(missing) > 0 || len(twice) > 0 || len(receipts) != n {
		fmt.Fprintf(w, "campaign log:    FAILED: %d receipts for %d emails\n", len(receipts), n)
		return fmt.Errorf("campaign log %s: %d emails without a receipt (%s), %d with more than one (%s)", path,
			len(missing), strings.Join(missing[:min(len(missing), 5)], ", "), len(twice), strings.Join(twice[:min(len(twice), 5)], ", "))
	}
	fmt.Fprintf(w, "campaign log:    one receipt per email, %d in all: ok\n", n)
	return nil
}
