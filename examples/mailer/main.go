// Command mailer sends a newsletter campaign through a chain of agents
// whose middle stage runs on other processes: a master and its workers,
// with package remote. Part way through it kills a worker with SIGKILL,
// and later starts a new one, and shows that every email still reached the
// mail server exactly once.
//
// The master starts a fake mail server: a net/http server on 127.0.0.1
// whose POST /messages takes an email as JSON, answers after 2 ms, keeps
// every email by its Message-ID, and delivers an email only the first time
// it sees its Message-ID: a repeat is answered 200 "already-delivered" and
// counted as refused. That Message-ID is the idempotency key.
//
// The campaign is a chain of agents (package compose):
//
//	emails 1..N -> rate agent: -rate emails a second
//	            -> remote stage "send": the workers, other processes, pull
//	               emails when they have a free slot (-slots each) and POST
//	               each to the mail server; each returns a receipt (the
//	               Message-ID, the worker's name, the server's answer)
//	            -> buffer agent: receipts in batches of 500 (or what came
//	               in 250 ms), each batch appended to the campaign log, one
//	               JSON receipt a line
//
// The workers are this program again, started with -worker: three by
// default, named w1 to w3. Once -kill-after emails have been delivered,
// the next email the mail server delivers from w1 gets w1 killed with
// SIGKILL before the server answers: that email is delivered, and w1 never
// reports it. The master sees w1's connection end and requeues every email
// w1 held, so another worker sends that email again, and the mail server
// refuses the repeat. Once -join-after emails have been delivered, the
// master starts one more worker, w4, which registers and gets its share.
//
// This is the remote stage's promise, shown end to end: each email's
// result (its receipt) comes out of the stage once, but an email is sent
// at least once, not exactly once; a worker killed after sending and
// before reporting makes a repeat. Exactly once delivery is the mail
// server's doing, by Message-ID, and the report keeps the two apart.
//
// At the end it prints the emails sent (receipts logged), the emails
// requeued and retried, the duplicate results the master dropped, each
// worker's receipts and what the mail server delivered and refused from
// it, and the time taken. Then it checks, from the mail server's records
// and the campaign log read back, that every email was delivered exactly
// once and has exactly one receipt, and prints how many were sent twice.
// Progress goes to stderr every second.
//
//	go run ./examples/mailer [-n 20000] [-rate 4000] [-workers 3] [-slots 8] [-kill-after N] [-join-after N] [-listen ADDR] [-log FILE] [-wait D]
//	go run ./examples/mailer -state DIR [-kill-master-after N] [-n 20000] [-rate 4000] [-workers 3] [-slots 8] [-listen ADDR] [-metrics ADDR] [-wait D]
//
// With -state DIR the master can die too. The program then supervises
// processes of its own, each this program again: the mail server (-role
// mail), the master (-role master) and the workers (-worker -items). The
// master keeps the emails to send in a durable queue in DIR (package
// durable: an embedded NATS JetStream server), fills it once, and runs the
// same chain on durable.Items: the workers send them with durable.Map, and
// each email is acknowledged once its receipt is appended to the campaign
// log, DIR/campaign.ndjson. After -kill-master-after deliveries the
// supervisor kills the master with SIGKILL and starts it again on the same
// state and address: the emails the dead master held come back from the
// queue, and the workers rejoin it on their own. Once the queue is empty it
// checks from the mail server's counts that every email was delivered
// exactly once (by Message-ID, a repeat refused) and prints "exactly once:
// ok". The log is a sink idempotent by key: a master started again reads
// it, and leaves out the receipts of emails it already has, which a master
// killed after it wrote a batch and before the queue had the batch's
// acknowledgements gets again. The check then finds one receipt per email
// in the log, and prints "campaign log: one receipt per email". With
// -metrics each master serves its agents' metrics, and prints where.
//
// The mail server keeps the Message-ID of every POST in DIR, and listens
// at the same address in every run, which the queued emails name: run
// again on the same DIR, the program goes on where the last run stopped
// (killed part way, say), and the mail server refuses a repeat of any
// run's email. Its report counts what the mail server received in this run
// and in the runs before, and checks "exactly once" over all of them. On a
// DIR whose campaign is done, it starts no master, and reports at once.
// The children end with the supervisor, even killed with SIGKILL (on Linux,
// by Pdeathsig).
//
// With -clients NAME:EMAILS[:WEIGHT],... the campaign is several clients'
// campaigns of different sizes, each client posting its own from a
// goroutine of its own: the rate agent and the remote stage are keyed by
// client (their Configs' Key and Weights), so the tokens, and the workers,
// go to the clients with emails waiting by weight; the rate agent lets
// each client fill only its part of its queue. A line a second says each
// client's share of the emails sent against its fair share, and the report
// says when each client's last email went, beside when it would have gone
// first come, first served, had the clients posted one after another:
//
//	go run ./examples/mailer -clients acme:18000,globex:1800,initech:200:2
//
// With -workers 0 the master starts no worker and waits for workers
// started by hand, from another terminal, with the address it prints:
//
//	go run ./examples/mailer -workers 0 -listen 127.0.0.1:7070
//	go run ./examples/mailer -worker -master 127.0.0.1:7070 -slots 8
//
// A worker may also join a default run that way. Stop a worker with Ctrl-C
// and it leaves gracefully, handing back the emails it holds; kill it and
// the master requeues them; stop it with SIGSTOP and its lease (10 s)
// expires. A worker whose master cannot be reached says so and exits 1;
// bad flags exit 2.
//
// While no worker is registered and emails wait, a line says so, with
// the command that starts one, and, for the emails already in the remote
// stage, when they fail for good for want of a worker (-wait after they
// began waiting); a line then says how many did (remote.ErrNoWorker).
//
// With -tls-ca, -tls-cert and -tls-key (PEM files, loaded by package
// mtls), master and workers speak mutual TLS, and so do the workers and
// the mail server, which then listens on the host of the master's
// -listen: -listen may then be off the loopback, for workers on other
// machines, each with its own certificate, which names the host of its
// own -listen:
//
//	go run ./examples/mailer -workers 0 -listen 10.0.0.5:7070 -tls-ca ca.pem -tls-cert master.pem -tls-key master-key.pem
//	go run ./examples/mailer -worker -master 10.0.0.5:7070 -listen 10.0.0.6:0 -tls-ca ca.pem -tls-cert worker1.pem -tls-key worker1-key.pem
//
// The workers the master starts get its files, and listen on its host
// (not with -state, whose processes all run on one machine).
// A worker given a master whose host does not resolve is told so.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(mainCode(os.Args[1:]))
}

// mainCode runs the program with args, and returns its exit status.
func mainCode(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, args, os.Stdout, os.Stderr)
	stop()
	return exitCode(err, os.Stderr)
}

// exitCode writes err to stderr, if any, and returns the exit status: 0
// for none, 2 for a command line that cannot be run, 1 for anything else.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "mailer: %v\n", err)
	if errors.As(err, new(flagError)) {
		fmt.Fprintln(stderr, "run mailer -h for the flags")
		return 2
	}
	return 1
}

// run is the whole program: it reads args, and runs a worker or a
// campaign.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	switch {
	case cfg.worker:
		return work(ctx, cfg, stdout, stderr)
	case cfg.role == "mail":
		return serveMail(ctx, cfg, stdout)
	case cfg.role == "master":
		return runQueuedMaster(ctx, cfg, stdout, stderr)
	case cfg.state != "":
		return supervise(ctx, cfg, stdout, stderr)
	}
	return runCampaign(ctx, cfg, stdout, stderr)
}
