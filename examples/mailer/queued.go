package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/internal/promserve"
	"github.com/evolvekit/evolve/rate"
	"github.com/evolvekit/evolve/remote"
	"github.com/rs/zerolog"
)

// The files of a campaign's state directory (-state).
const (
	queueDir    = "queue"            // the durable queue of the emails to send
	addedMarker = "added"            // written once every email is in the queue
	doneMarker  = "done"             // written once the queue is empty and no email failed
	stateLog    = "campaign.ndjson"  // the campaign log, appended to
	mailJournal = "mail-server.ids"  // the mail server's journal: every run's POSTs
	mailAddr    = "mail-server.addr" // where the mail server listens in every run: the queued emails name it
)

// masterReady is in the line a master prints once its stage runs, and
// workers may register: the supervisor starts them then.
const masterReady = "on the queue in"

// addChunk is how many emails the master adds to the queue at once.
const addChunk = 10_000

// runQueuedMaster is the master of a campaign with -state (-role master):
// the emails come from a durable queue in cfg.state, which it fills the
// first time, and go through the same chain as without, on durable.Items:
// the rate agent, the remote stage whose workers send them (with
// durable.Map), and a buffer agent whose batches of receipts are appended
// to the campaign log, each email acknowledged once its receipt is there.
// It ends once the queue is empty, and marks the campaign done
// (doneMarker) if no email failed. Killed at any moment and started again
// on the same state and address, it goes on: the emails it held come back
// from the queue, and the workers rejoin it.
func runQueuedMaster(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	q, err := durable.Open[email](durable.Embedded{Dir: filepath.Join(cfg.state, queueDir)}, durable.Config{Name: "mailer"})
	if err != nil {
		return fmt.Errorf("-state: %w", err)
	}
	defer q.Close()
	if err := fill(ctx, q, cfg); err != nil {
		return err
	}
	node, err := remote.Listen(remote.NodeConfig{Addr: cfg.listen, TLS: cfg.creds})
	if err != nil {
		return asFlagError(fmt.Errorf("-listen: %w", err))
	}
	defer node.Close()
	metrics, srv, stopMetrics, err := promserve.Option(cfg.metrics)
	if err != nil {
		return asFlagError(fmt.Errorf("-metrics: %w", err))
	}
	defer stopMetrics(context.Background())
	if srv != nil {
		fmt.Fprintf(stdout, "mailer: master (pid %d): the agents' metrics are at %s\n", os.Getpid(), srv.URL())
	}
	rt := agent.NewRuntime(metrics, agent.WithLogger(zerolog.New(stderr).Level(zerolog.WarnLevel).With().Timestamp().Logger()))
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), endWait)
		defer cancel()
		_ = rt.Shutdown(sctx)
	}()
	stages, err := queuedChain(cfg, node)
	if err != nil {
		return err
	}
	log, err := openAppendLog(filepath.Join(cfg.state, stateLog))
	if err != nil {
		return err
	}
	chain, err := compose.Start(rt, stages, durable.Batches(q, log.write), compose.WithName("mailer"), compose.WithDeadLetters(q.DeadLetters))
	if err != nil {
		return err
	}
	promserve.Watch(srv, chain)
	fmt.Fprintf(stdout, "mailer: master (pid %d) at %s, %s %s\n", os.Getpid(), node.Addr(), masterReady, cfg.state)
	if err := durable.Consume(ctx, q, chain, durable.WithUntilEmpty()); err != nil {
		return err
	}
	dead, err := q.DeadLen(context.Background())
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "mailer: master (pid %d): the queue is empty: %d receipts logged by this master (%d repeats of receipts already in the log left out), %d dead letters\n",
		os.Getpid(), log.written, log.repeats, dead)
	if dead > 0 {
		return fmt.Errorf("%d emails failed for good", dead)
	}
	return os.WriteFile(filepath.Join(cfg.state, doneMarker), nil, 0o644)
}

// fill adds the campaign's emails to q, unless an earlier master did: a
// master killed while it added them adds them all again, and the queue
// keeps one of each key (its Dedupe window); the mail server would refuse a
// repeat anyway.
func fill(ctx context.Context, q *durable.Queue[email], cfg config) error {
	marker := filepath.Join(cfg.state, addedMarker)
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	entries := make([]durable.Entry[email], 0, addChunk)
	for i := 1; i <= cfg.n; i++ {
		e := newEmail(i, cfg.relay)
		entries = append(entries, durable.Entry[email]{Key: e.ID, Value: e})
		if len(entries) == addChunk || i == cfg.n {
			if err := q.AddMany(ctx, entries); err != nil {
				return fmt.Errorf("adding the emails to the queue: %w", err)
			}
			entries = entries[:0]
		}
	}
	return os.WriteFile(marker, nil, 0o644)
}

// queuedChain returns the chain of the master with -state.
func queuedChain(cfg config, node *remote.Node) (agent.Stage[durable.Item[email], []durable.Item[receipt]], error) {
	var none agent.Stage[durable.Item[email], []durable.Item[receipt]]
	limit, err := rate.Stage(rate.Config[durable.Item[email]]{Name: "rate", Rate: cfg.rate, Burst: burst(cfg.rate)})
	if err != nil {
		return none, err
	}
	send, err := remote.Stage[durable.Item[email], durable.Item[receipt]](remote.Config[durable.Item[email]]{
		Node: node, Name: stageName, Unordered: true, Lease: lease, TagWait: cfg.wait})
	if err != nil {
		return none, err
	}
	write, err := buffer.Stage(buffer.Config[durable.Item[receipt]]{Name: "log", Size: logBatch, MaxWait: logLinger}, nil)
	if err != nil {
		return none, err
	}
	return compose.Pipe3(limit, send, write), nil
}

// appendLog appends batches of receipts to the campaign log of a state
// directory, one JSON receipt a line, each email's once: a master killed
// after it wrote a batch and before the queue had the batch's
// acknowledgements gets those emails again, and their receipts are left
// out. So the log is a sink idempotent by key, and holds exactly one
// receipt per email. Only the chain's sink calls write.
type appendLog struct {
	path    string
	seen    map[string]bool // the Message-IDs in the log
	written int             // receipts written by this process
	repeats int             // receipts left out, already in the log
}

// openAppendLog reads the campaign log at path, if there is one, for the
// emails it has receipts of. A line cut short by a crash mid-write is cut
// off: its batch was not acknowledged, and comes again.
func openAppendLog(path string) (*appendLog, error) {
	l := &appendLog{path: path, seen: map[string]bool{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, fmt.Errorf("campaign log: %w", err)
	}
	whole := bytes.LastIndexByte(data, '\n') + 1
	if whole < len(data) {
		if err := os.Truncate(path, int64(whole)); err != nil {
			return nil, fmt.Errorf("campaign log: cutting off a line cut short: %w", err)
		}
	}
	for line := range bytes.Lines(data[:whole]) {
		var r receipt
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("campaign log %s: %w", path, err)
		}
		l.seen[r.ID] = true
	}
	return l, nil
}

// write appends the receipts of batch not yet in the log, and syncs it.
func (l *appendLog) write(batch []durable.Item[receipt]) error {
	var b []byte
	var ids []string
	for _, it := range batch {
		if l.seen[it.Value.ID] {
			l.repeats++
			continue
		}
		line, err := json.Marshal(it.Value)
		if err != nil {
			return err
		}
		b = append(append(b, line...), '\n')
		ids = append(ids, it.Value.ID)
	}
	if len(b) == 0 {
		return nil
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return err
	}
	for _, id := range ids {
		l.seen[id] = true
	}
	l.written += len(ids)
	return nil
}
