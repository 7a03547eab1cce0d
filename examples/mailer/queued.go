package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/rate"
	"github.com/evolvekit/evolve/remote"
	"github.com/rs/zerolog"
)

// The files of a campaign's state directory (-state).
const (
	queueDir    = "queue"           // the durable queue of the emails to send
	addedMarker = "added"           // written once every email is in the queue
	stateLog    = "campaign.ndjson" // the campaign log, appended to
)

// addChunk is how many emails the master adds to the queue at once.
const addChunk = 10_000

// runQueuedMaster is the master of a campaign with -state (-role master):
// the emails come from a durable queue in cfg.state, which it fills the
// first time, and go through the same chain as without, on durable.Items:
// the rate agent, the remote stage whose workers send them (with
// durable.Map), and a buffer agent whose batches of receipts are appended
// to the campaign log, each email acknowledged once its receipt is there.
// It ends once the queue is empty. Killed at any moment and started again
// on the same state and address, it goes on: the emails it held come back
// from the queue, and the workers rejoin it.
func runQueuedMaster(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	q, err := durable.Open[email](durable.Config{Dir: filepath.Join(cfg.state, queueDir), Name: "mailer"})
	if err != nil {
		return fmt.Errorf("-state: %w", err)
	}
	defer q.Close()
	if err := fill(ctx, q, cfg); err != nil {
		return err
	}
	node, err := remote.Listen(cfg.listen)
	if err != nil {
		return asFlagError(fmt.Errorf("-listen: %w", err))
	}
	defer node.Close()
	rt := agent.NewRuntime(agent.WithLogger(zerolog.New(stderr).Level(zerolog.WarnLevel).With().Timestamp().Logger()))
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), endWait)
		defer cancel()
		_ = rt.Shutdown(sctx)
	}()
	stages, err := queuedChain(cfg, node)
	if err != nil {
		return err
	}
	log := &appendLog{path: filepath.Join(cfg.state, stateLog)}
	chain, err := compose.Start(rt, stages, durable.Batches(q, log.write), compose.WithName("mailer"), compose.WithDeadLetters(q.DeadLetters))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "mailer: master (pid %d) at %s, on the queue in %s\n", os.Getpid(), node.Addr(), cfg.state)
	if err := durable.Consume(ctx, q, chain, durable.UntilEmpty()); err != nil {
		return err
	}
	dead, err := q.DeadLen(context.Background())
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "mailer: master (pid %d): the queue is empty: %d receipts logged by this master, %d dead letters\n", os.Getpid(), log.written, dead)
	if dead > 0 {
		return fmt.Errorf("%d emails failed for good", dead)
	}
	return nil
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
// directory, one JSON receipt a line. Only the chain's sink calls write.
type appendLog struct {
	path    string
	written int // receipts written by this process
}

// write appends the receipts of batch to the log, and syncs it.
func (l *appendLog) write(batch []durable.Item[receipt]) error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	var b []byte
	for _, it := range batch {
		line, err := json.Marshal(it.Value)
		if err != nil {
			return errors.Join(err, f.Close())
		}
		b = append(append(b, line...), '\n')
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return err
	}
	l.written += len(batch)
	return nil
}
