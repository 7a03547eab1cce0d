package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/durable"
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
	found  int                      // how many of loaded earlier runs found
	died   int                      // what the last run said a crash would load again, if it died loading; else 0
}

// deadLine is a line of the dead letters' file: a record that failed for
// good.
type deadLine struct {
	ID       int    `json:"id"`
	Agent    string `json:"agent"`
	Attempts int    `json:"attempts"`
	Error    string `json:"error"`
}

// Names in a state's directory.
const (
	batchesDir  = "batches"
	deadFile    = "dead-letters.ndjson"
	loadingFile = "loading" // a run's bound, while it loads from its own queue
)

// openState prepares dir, with the batch files in out (dir/batches, or dir
// for a joiner's -out), read back: what they hold is loaded (a batch file
// is whole or absent: a temporary file left by a crash is removed); and
// whether the last run died loading.
func openState(dir, out string) (*state, error) {
	s := &state{dir: dir, out: out, queue: filepath.Join(dir, "queue"),
		filled: filepath.Join(dir, "queue-filled"), deadPath: filepath.Join(dir, deadFile),
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
	b, _ := os.ReadFile(filepath.Join(dir, loadingFile)) // none, or not a number: the last run did not die loading
	s.died, _ = strconv.Atoi(string(b))
	s.found = len(s.loaded)
	var whole, size int64
	if s.dead, whole, size, err = readDead(s.deadPath); err == nil && whole < size {
		err = os.Truncate(s.deadPath, whole) // the line cut short
	}
	s.before = len(s.dead)
	return s, err
}

// readDead reads the whole lines of the dead letters' file at path, none
// if there is no file: a line cut short by a crash mid-write is not a dead
// letter (its item was not acknowledged, and comes again). It returns the
// length of the whole lines, and of the file.
func readDead(path string) (dead map[int]agent.DeadLetter, whole, size int64, err error) {
	data, err := os.ReadFile(path)
	dead = map[int]agent.DeadLetter{}
	if errors.Is(err, fs.ErrNotExist) {
		return dead, 0, 0, nil
	} else if err != nil {
		return nil, 0, 0, err
	}
	whole = int64(bytes.LastIndexByte(data, '\n') + 1)
	for line := range bytes.Lines(data[:whole]) {
		var d deadLine
		if err := json.Unmarshal(line, &d); err != nil {
			return nil, 0, 0, fmt.Errorf("%s: %w", path, err)
		}
		dead[d.ID] = agent.DeadLetter{Agent: d.Agent, Attempts: d.Attempts, Err: errors.New(d.Error), Item: d.ID}
	}
	return dead, whole, int64(len(data)), nil
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
	fs := &files{dir: s.out, before: int64(len(names))}
	fs.written.Store(fs.before)
	return fs, nil
}

// loading writes bound, what a crash of a run loading from its own queue
// would load again, as the load starts, and returns done, which removes it
// as the load ends: found by the next run, it tells that this one died.
func (s *state) loading(bound int) (done func()) {
	name := filepath.Join(s.dir, loadingFile)
	_ = os.WriteFile(name, []byte(strconv.Itoa(bound)), 0o644) // lost, the next run only lacks its word on a slow start
	return func() { os.Remove(name) }
}

// fill adds to q the ids from 1 to n not yet loaded nor failed, once: not
// if an earlier run filled it. A crash while adding makes the next run add
// again: the queue takes a key it has within its dedupe window once.
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
