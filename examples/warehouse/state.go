package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
)

// state is what -state keeps in its directory: the batch files in
// batches/, and the ids still to load in a durable queue in queue/ (NATS
// JetStream, embedded). Killed at any moment and run again, the program
// finds there what it loaded and what it did not.
type state struct {
	dir      string
	out      string // the batch files
	queue    string // the durable queue's store
	filled   string // a file that says every id was added to the queue
	deadPath string // the dead letters of every run, one JSON line each

	mu     sync.Mutex
	loaded map[int]bool             // ids in the batch files
	dead   map[int]agent.DeadLetter // ids that failed for good, in this run or an earlier one
	before int                      // how many of dead earlier runs found
}

// deadLine is a line of the dead letters' file: a record that failed for
// good.
type deadLine struct {
	ID       int    `json:"id"`
	Agent    string `json:"agent"`
	Attempts int    `json:"attempts"`
	Error    string `json:"error"`
}

// openState prepares dir: the batch files there are read back (a batch
// is in its file whole or not at all: a temporary file left by a crash is
// removed), and what they hold is loaded.
func openState(dir string) (*state, error) {
	s := &state{dir: dir, out: filepath.Join(dir, "batches"), queue: filepath.Join(dir, "queue"),
		filled: filepath.Join(dir, "queue-filled"), deadPath: filepath.Join(dir, "dead-letters.ndjson"),
		loaded: map[int]bool{}, dead: map[int]agent.DeadLetter{}}
	if err := os.MkdirAll(s.out, 0o755); err != nil {
		return nil, err
	}
	tmps, err := filepath.Glob(filepath.Join(s.out, "*.tmp"))
	if err != nil {
		return nil, err
	}
	for _, t := range tmps {
		if err := os.Remove(t); err != nil {
			return nil, err
		}
	}
	t, err := readBack(s.out)
	if err != nil {
		return nil, err
	}
	if len(t.bad) > 0 {
		return nil, fmt.Errorf("%s holds lines that are not records: %v", s.out, t.bad)
	}
	for id, n := range t.seen {
		if n > 1 {
			return nil, fmt.Errorf("%s holds record %d %d times", s.out, id, n)
		}
		s.loaded[id] = true
	}
	if err := s.readDead(); err != nil {
		return nil, err
	}
	return s, nil
}

// readDead reads the dead letters earlier runs wrote. A line cut short by
// a crash mid-write is cut off: its item was not acknowledged, and comes
// again.
func (s *state) readDead() error {
	data, err := os.ReadFile(s.deadPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	whole := bytes.LastIndexByte(data, '\n') + 1
	if whole < len(data) {
		if err := os.Truncate(s.deadPath, int64(whole)); err != nil {
			return err
		}
	}
	for line := range bytes.Lines(data[:whole]) {
		var d deadLine
		if err := json.Unmarshal(line, &d); err != nil {
			return fmt.Errorf("%s: %w", s.deadPath, err)
		}
		s.dead[d.ID] = agent.DeadLetter{Agent: d.Agent, Attempts: d.Attempts, Err: errors.New(d.Error), Item: d.ID}
	}
	s.before = len(s.dead)
	return nil
}

// bury writes the records of the dead letter d to the dead letters' file,
// synced, before the queue lets their items go.
func (s *state) bury(d agent.DeadLetter) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b []byte
	var ids []int
	for _, id := range deadIDs(d.Item) {
		// A record in a file already was loaded by a run that died before
		// the queue had its acknowledgement: it did not fail.
		if !s.loaded[id] {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	for _, id := range ids {
		why := "failed"
		if d.Err != nil {
			why = d.Err.Error()
		}
		line, err := json.Marshal(deadLine{ID: id, Agent: d.Agent, Attempts: d.Attempts, Error: why})
		if err != nil {
			return err
		}
		b = append(append(b, line...), '\n')
	}
	f, err := os.OpenFile(s.deadPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if err := errors.Join(err, f.Close()); err != nil {
		return err
	}
	for _, id := range ids {
		s.dead[id] = d
	}
	return nil
}

// deadLetters returns the records that failed for good, in this run or
// an earlier one, and how many of them earlier runs found.
func (s *state) deadLetters() (map[int]agent.DeadLetter, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.dead), s.before
}

// files returns the writer of the batch files, numbering on from those
// there.
func (s *state) files() (*files, error) {
	names, err := filepath.Glob(filepath.Join(s.out, filePattern))
	if err != nil {
		return nil, err
	}
	fs := &files{dir: s.out}
	fs.written.Store(int64(len(names)))
	return fs, nil
}

// fill adds to q the ids from 1 to n not yet loaded nor failed, once: a run that
// finds the queue filled by an earlier one adds nothing. A crash while
// adding makes the next run add again: the queue takes a key it already
// has within its dedupe window once, and the files skip an id they hold.
func (s *state) fill(ctx context.Context, q *durable.Queue[int], n int) (int, error) {
	if _, err := os.Stat(s.filled); err == nil {
		return 0, nil
	}
	var entries []durable.Entry[int]
	for id := 1; id <= n; id++ {
		if _, failed := s.dead[id]; !s.loaded[id] && !failed {
			entries = append(entries, durable.Entry[int]{Key: strconv.Itoa(id), Value: id})
		}
	}
	if err := q.AddMany(ctx, entries); err != nil {
		return 0, err
	}
	return len(entries), os.WriteFile(s.filled, []byte(strconv.Itoa(n)+"\n"), 0o644)
}

// fresh returns the records of batch whose ids are neither in the files
// nor in the dead letters yet: an item handed out again after a crash may
// have reached either already.
func (s *state) fresh(batch []durable.Item[record]) []record {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]record, 0, len(batch))
	for _, it := range batch {
		// A record a run that died sent to the dead letters, before the
		// queue had its acknowledgement, stays there.
		if _, failed := s.dead[it.Value.ID]; !s.loaded[it.Value.ID] && !failed {
			out = append(out, it.Value)
		}
	}
	return out
}

// mark notes the records written.
func (s *state) mark(rs []record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range rs {
		s.loaded[r.ID] = true
	}
}

// durableChain returns the loader's chain on items of a durable queue: the
// same stages as chain, the GETs lifted to items, and the buffer writing
// each batch's records that are not in a file yet. A partial batch is cut
// after a second, so that it does not hold its items while the queue has
// no more to give.
func (l *loader) durableChain(s *state) (agent.Stage[durable.Item[int], []durable.Item[record]], error) {
	var none agent.Stage[durable.Item[int], []durable.Item[record]]
	limit, err := rate.Stage(rate.Config[durable.Item[int]]{Name: "rate", Rate: l.rate, Burst: loaderBurst(l.rate)})
	if err != nil {
		return none, err
	}
	fetch, err := parallel.Stage(parallel.Config{Name: "fetch", Limit: l.parallel, Queue: 1, Unordered: true,
		Timeout: requestTimeout, Retry: l.retry}, durable.Map(l.f.fetch))
	if err != nil {
		return none, err
	}
	write, err := buffer.Stage(buffer.Config[durable.Item[record]]{Name: "files", Size: l.batch, MaxWait: time.Second},
		func(ctx context.Context, batch []durable.Item[record]) error {
			rs := s.fresh(batch)
			if len(rs) == 0 {
				return nil
			}
			if err := l.out.write(ctx, rs); err != nil {
				return err
			}
			s.mark(rs)
			l.loaded.Add(int64(len(rs)))
			return nil
		})
	if err != nil {
		return none, err
	}
	return compose.Pipe3(limit, fetch, write), nil
}

// loadDurable loads through a durable queue in s: it adds the ids not
// loaded yet, once, and runs the chain on the queue until it is empty,
// each id acknowledged once its record is in a file. A record that fails
// for good is acknowledged too, once it is in the state's dead letters'
// file, and listed.
func (l *loader) loadDurable(ctx context.Context, rt *agent.Runtime, s *state, stdout io.Writer) error {
	q, err := durable.Open[int](durable.Embedded{Dir: s.queue}, durable.Config{Name: "warehouse"})
	if err != nil {
		return err
	}
	defer q.Close()
	added, err := s.fill(ctx, q, l.n)
	if err != nil {
		return err
	}
	left, err := q.Len(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "warehouse: %d ids added to the queue in %s, %d to load\n", added, s.queue, left)
	stages, err := l.durableChain(s)
	if err != nil {
		return err
	}
	c, err := compose.Start(rt, stages, durable.Batches(q, func([]durable.Item[record]) error { return nil }),
		compose.WithName("warehouse"), compose.WithDeadLetters(durable.DeadLetterSink(q, func(d agent.DeadLetter) error {
			// Written down before the queue lets the item go, so that a
			// later run knows it failed.
			if err := s.bury(d); err != nil {
				return err
			}
			l.dead.add(d)
			return nil
		})))
	if err != nil {
		return err
	}
	err = durable.Consume(ctx, q, c, durable.WithUntilEmpty())
	var dl *agent.DeadLettersError
	if err != nil && !errors.As(err, &dl) {
		return err
	}
	l.count(c.Status)
	return err
}
