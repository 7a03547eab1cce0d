package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/evolvekit/evolve/examples/mailer/internal/mailserver"
	"github.com/evolvekit/evolve/examples/mailer/internal/ndjson"
	"github.com/evolvekit/evolve/remote"
)

// workerLine is one worker's row in the report: its receipts in the
// campaign log, the emails the mail server delivered and refused from it,
// and, for a worker the master started, its pid and how it ended.
type workerLine struct {
	name                         string
	pid                          int
	ended                        string
	receipts, delivered, refused int
}

// workerLines returns a row for every worker the campaign heard of: those
// the master started, in the order it started them, then those started by
// hand, by name.
func (c *campaign) workerLines() []workerLine {
	mail := c.mail.Counts()
	c.mu.Lock()
	receipts := make(map[string]int, len(c.receipts))
	for k, v := range c.receipts {
		receipts[k] = v
	}
	c.mu.Unlock()
	var lines []workerLine
	seen := make(map[string]bool)
	add := func(name string, pid int, ended string) {
		seen[name] = true
		t := mail.ByWorker[name]
		lines = append(lines, workerLine{name: name, pid: pid, ended: ended, receipts: receipts[name], delivered: t.Delivered, refused: t.Refused})
	}
	for _, p := range c.fleet.All() {
		ended := c.fleet.Ended(p)
		if c.scale != nil && c.scale.Stopped(p.Name) {
			ended = "stopped: not wanted"
		}
		add(p.Name, p.Pid(), ended)
	}
	var others []string
	for name := range receipts {
		others = append(others, name)
	}
	for name := range mail.ByWorker {
		others = append(others, name)
	}
	slices.Sort(others)
	for _, name := range slices.Compact(others) {
		if !seen[name] {
			add(name, 0, "started by hand")
		}
	}
	return lines
}

// report prints what the campaign did.
func report(w io.Writer, cfg config, log string, o outcome) {
	least := time.Duration(float64(max(0, cfg.n-burst(cfg.rate))) / cfg.rate * float64(time.Second))
	fmt.Fprintf(w, "emails sent:        %d of %d, a receipt each in the campaign log (%d batches)\n", o.sent, cfg.n, o.batches)
	fmt.Fprintf(w, "requeued:           %d (emails taken back from a worker that died, left or let its lease expire, and handed out again)\n", o.status.Requeued)
	fmt.Fprintf(w, "retried:            %d (emails tried again after the mail server answered with an error)\n", o.status.Retried)
	fmt.Fprintf(w, "duplicates dropped: %d (results the master dropped: the email's result was in already)\n", o.status.Duplicates)
	fmt.Fprintf(w, "elapsed:            %v (least possible at %g emails a second, the first %d at once: %v)\n",
		o.elapsed.Round(time.Millisecond), cfg.rate, burst(cfg.rate), least.Round(time.Millisecond))
	if o.scaled != "" {
		fmt.Fprintf(w, "autoscale:          %s\n", o.scaled)
	}
	for _, line := range o.clients {
		fmt.Fprintf(w, "  %s\n", line)
	}
	fmt.Fprintf(w, "by worker:          %8s %9s %7s  %s\n", "receipts", "delivered", "refused", "ended")
	for _, l := range o.workers {
		name := l.name
		if l.pid != 0 {
			name = fmt.Sprintf("%s (pid %d)", l.name, l.pid)
		}
		fmt.Fprintf(w, "  %-17s %8d %9d %7d  %s\n", name, l.receipts, l.delivered, l.refused, l.ended)
	}
	posts := o.mail.Total.Delivered + o.mail.Total.Refused
	fmt.Fprintf(w, "mail server:        %d POSTs for %d emails: %d delivered, %d refused as repeats of a Message-ID it had delivered\n",
		posts, cfg.n, o.mail.Total.Delivered, o.mail.Total.Refused)
	fmt.Fprintf(w, "campaign log:       %s\n", log)
}

// failure returns the error of a campaign whose chain failed: an email
// that failed for good, after the remote stage's MaxAttempts tries.
func failure(err error, st remote.Status) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%d emails failed for good: %w", st.Failed, err)
}

// verify checks, from the mail server's own records and the campaign log
// read back, that every email of 1 to n was delivered exactly once and has
// one receipt, and prints the outcome, saying how many emails were sent
// more than once.
func verify(w io.Writer, n int, log string, o outcome) error {
	receipts, err := ndjson.Read[receipt]("campaign log", log)
	var repeats int
	if err == nil {
		repeats, err = checkOnce(n, o.mail, receipts)
	}
	if err != nil {
		fmt.Fprintf(w, "check:              FAILED: %v\n", err)
		return fmt.Errorf("check: %w", err)
	}
	posts := o.mail.Total.Delivered + o.mail.Total.Refused
	fmt.Fprintf(w, "check:              every email of %d was delivered by the mail server exactly once: ok\n", n)
	if o.mail.Total.Refused == 0 {
		fmt.Fprintf(w, "                    and sent exactly once this time: %d POSTs for %d emails\n", posts, n)
	} else {
		fmt.Fprintf(w, "                    but sent at least once, not exactly once: %d POSTs for %d emails; the mail server's dedupe by Message-ID refused the %d repeats\n",
			posts, n, o.mail.Total.Refused)
	}
	fmt.Fprintf(w, "                    one receipt per email in the campaign log: ok (%d of them say already-delivered)\n", repeats)
	return nil
}

// checkOnce checks that the mail server saw every email of 1 to n and no
// other, delivered n, and counted every POST; and that the campaign log
// holds one receipt for each email, and no more receipts saying
// already-delivered than the server refused. It returns the receipts
// saying already-delivered.
func checkOnce(n int, mail mailserver.Counts, receipts []receipt) (int, error) {
	var problems []string
	inLog := make(map[string]int, len(receipts))
	repeats := 0
	for _, r := range receipts {
		inLog[r.ID]++
		if r.Outcome == mailserver.Repeat {
			repeats++
		}
	}
	posts := 0
	for _, k := range mail.Posts {
		posts += k
	}
	missing, unlogged, twice := 0, 0, 0
	for i := 1; i <= n; i++ {
		id := messageID(i)
		if mail.Posts[id] == 0 {
			missing++
		}
		switch inLog[id] {
		case 0:
			unlogged++
		case 1:
		default:
			twice++
		}
	}
	switch {
	case missing > 0:
		problems = append(problems, fmt.Sprintf("%d emails never reached the mail server", missing))
	case len(mail.Posts) != n || mail.Total.Delivered != n:
		problems = append(problems, fmt.Sprintf("the mail server delivered %d emails, %d distinct, for %d", mail.Total.Delivered, len(mail.Posts), n))
	}
	if posts != mail.Total.Delivered+mail.Total.Refused {
		problems = append(problems, fmt.Sprintf("the mail server took %d POSTs but delivered %d and refused %d", posts, mail.Total.Delivered, mail.Total.Refused))
	}
	if unlogged > 0 || twice > 0 || len(receipts) != n {
		problems = append(problems, fmt.Sprintf("the campaign log holds %d receipts for %d emails: %d emails have none, %d more than one", len(receipts), n, unlogged, twice))
	}
	if repeats > mail.Total.Refused {
		problems = append(problems, fmt.Sprintf("%d receipts say already-delivered, but the mail server refused %d repeats", repeats, mail.Total.Refused))
	}
	if len(problems) > 0 {
		return repeats, errors.New(strings.Join(problems, "; "))
	}
	return repeats, nil
}
