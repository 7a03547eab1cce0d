// Package crashes keeps an embedded durable queue's record of the runs
// that died, so that an item that kills its process every time is known
// and spends its attempts, though the queue's consumer, and its count of
// deliveries, is made anew (or started again) at each open; and, for a
// queue that keeps its acknowledged items, which acknowledgements a crash
// may have cost the server's record.
package crashes

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evolvekit/evolve/durable/internal/seqs"
)

// An embedded queue's consumer is made anew, or started again after its
// acknowledgement floor, at each open, and JetStream's count of each
// item's deliveries goes with it. So that an item that kills its process
// every time is not tried forever, an embedded queue keeps two files
// beside its store:
//
//   - the run file, which a run writes before its chains get the items:
//     the highest stream sequence it has handed out, and the item, if any,
//     its work runs alone (below); then, a line each time it rises, the
//     highest sequence it handed out of each fair key (whose items are
//     handed out in turns, each key's in the stream's order); and, for a
//     queue that keeps its acknowledged items (see Acked), a line each
//     time this run's acknowledgements are confirmed, of their
//     sequences. Close removes it; found at open, it tells of a run that
//     died.
//   - the crash file, which the next open writes: the items held by runs
//     that died, the suspects, and how many times each item killed its
//     process working alone.
//
// A run that died holding items makes them suspects, and charges none of
// them: most of what a process holds when it dies did not kill it. The
// next run works on each suspect alone, once no other item is in work,
// and no other item starts while it runs (Work sees to it), having
// written its sequence in the run file. A process that dies then was
// killed by that item, which spends one of its attempts.
const (
	runName   = "evolve-durable.run"
	crashName = "evolve-durable.crashes"
)

// Record is an embedded queue's record of the runs that died, and of
// this one. Its methods are safe for concurrent use; on a nil Record,
// all but Work do nothing and report nothing.
type Record struct {
	dir     string
	upTo    uint64            // the items with no fair key up to this sequence are suspects; 0 for none
	upToOf  map[string]uint64 // those of each fair key, by its token
	charged map[uint64]int    // the items that killed their process, by sequence, and how often

	// alone is held shared by the work on every item, and exclusively by
	// the work on a suspect, while suspects remain.
	alone sync.RWMutex

	mu     sync.Mutex
	run    *os.File          // this run's record, or nil once closed
	mark   uint64            // the highest sequence handed out of the items with no fair key
	marks  map[string]uint64 // of each fair key's, by its token
	size   int64             // the run file's length
	lines  int               // the lines of fair keys in the run file
	inWork uint64            // the suspect in work alone, 0 for none
	acked  seqs.Ranges       // the items with no fair key acknowledged, above the floor last pruned to
	ranges int               // the ranges in the run file's lines of acknowledgements
}

// crashRecord is the content of the crash file.
type crashRecord struct {
	// Stream is when the queue's stream was made: a stream made anew
	// numbers its items from 1 again, and the record no longer applies.
	Stream time.Time `json:"stream"`
	// SuspectsTo is the highest sequence of the items with no fair key
	// that runs which died held; 0 for none. SuspectsOf is that of each
	// fair key's, by its token.
	SuspectsTo uint64            `json:"suspects_to,omitempty"`
	SuspectsOf map[string]uint64 `json:"suspects_of,omitempty"`
	// Killed counts, by sequence, the processes each item killed while
	// its work ran alone.
	Killed map[uint64]int `json:"killed,omitempty"`
}

// The run file: two numbers of a fixed width, the highest sequence handed
// out and the suspect in work alone, so that each is written in place.
const (
	runWidth = 20
	runAlone = runWidth + 1 // the offset of the second number
)

// Open reads what the runs before this one left in dir, for a stream
// made at made whose first message not acknowledged is first (for a
// queue that keeps its acknowledged items, the one after its consumer's
// acknowledgement floor), adds what the last run's death tells, if it
// died, forgets the items that are gone, and starts this run's record.
func Open(dir string, made time.Time, first uint64) (*Record, error) {
	fail := func(what string, err error) error {
		return fmt.Errorf("%s: %w", what, err)
	}
	var rec crashRecord
	switch data, err := os.ReadFile(filepath.Join(dir, crashName)); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fail("reading the record of crashes", err)
	default:
		// A record that cannot be read is as none: it only ever adds
		// attempts and care.
		if json.Unmarshal(data, &rec) != nil || !rec.Stream.Equal(made) {
			rec = crashRecord{}
		}
	}
	rec.Stream = made
	var acked seqs.Ranges
	switch data, err := os.ReadFile(filepath.Join(dir, runName)); {
	case errors.Is(err, fs.ErrNotExist):
		rec.SuspectsTo, rec.SuspectsOf = 0, nil // the last run ended well, or there was none
	case err != nil:
		return nil, fail("reading the last run's record", err)
	default:
		var handed, alone uint64
		var of map[string]uint64
		handed, alone, of, acked = parseRun(string(data))
		switch {
		case alone > 0:
			if rec.Killed == nil {
				rec.Killed = map[uint64]int{}
			}
			rec.Killed[alone]++
		default:
			rec.SuspectsTo = max(rec.SuspectsTo, handed)
			for k, seq := range of {
				if rec.SuspectsOf == nil {
					rec.SuspectsOf = map[string]uint64{}
				}
				rec.SuspectsOf[k] = max(rec.SuspectsOf[k], seq)
			}
		}
	}
	if rec.SuspectsTo < first {
		rec.SuspectsTo = 0
	}
	for k, seq := range rec.SuspectsOf {
		if seq < first {
			delete(rec.SuspectsOf, k)
		}
	}
	for seq := range rec.Killed {
		if seq < first {
			delete(rec.Killed, seq)
		}
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return nil, fail("writing the record of crashes", err)
	}
	if err := replace(filepath.Join(dir, crashName), data); err != nil {
		return nil, fail("writing the record of crashes", err)
	}
	c := &Record{dir: dir, upTo: rec.SuspectsTo, upToOf: rec.SuspectsOf, charged: rec.Killed, marks: map[string]uint64{}}
	if first > 0 {
		c.acked = acked.Above(first - 1)
	}
	if err := c.start(); err != nil {
		return nil, fail("starting this run's record", err)
	}
	return c, nil
}

// start writes the run file anew, whole or not at all, with what this run
// has recorded, and opens it. The caller holds mu, or is Open.
func (c *Record) start() error {
	data := fmt.Appendf(nil, "%0*d %0*d\n", runWidth, c.mark, runWidth, c.inWork)
	for k, seq := range c.marks {
		data = fmt.Appendf(data, "%s %d\n", k, seq)
	}
	data = appendAcked(data, c.acked)
	name := filepath.Join(c.dir, runName)
	if err := replace(name, data); err != nil {
		return err
	}
	run, err := os.OpenFile(name, os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	if c.run != nil {
		c.run.Close()
	}
	c.run, c.size, c.lines, c.ranges = run, int64(len(data)), len(c.marks), len(c.acked)
	return nil
}

// parseRun reads a run file: the highest sequence handed out of the
// items with no fair key, the suspect in work alone, the highest handed
// out of each fair key's, and the items acknowledged. What cannot be
// read is 0, or left out.
func parseRun(s string) (handed, alone uint64, of map[string]uint64, acked seqs.Ranges) {
	head, rest, _ := strings.Cut(s, "\n")
	f := strings.Fields(head)
	if len(f) > 0 {
		handed, _ = strconv.ParseUint(f[0], 10, 64)
	}
	if len(f) > 1 {
		alone, _ = strconv.ParseUint(f[1], 10, 64)
	}
	for line := range strings.Lines(rest) {
		if !strings.HasSuffix(line, "\n") {
			continue // a line the death cut short
		}
		if list, ok := strings.CutPrefix(line, ackedLine); ok {
			acked, _ = acked.Parse(list)
			continue
		}
		k, n, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		seq, err := strconv.ParseUint(n, 10, 64)
		if !ok || err != nil {
			continue // a line the death cut short
		}
		if of == nil {
			of = map[string]uint64{}
		}
		of[k] = max(of[k], seq)
	}
	return handed, alone, of, acked
}

// replace writes data to the file name, whole or not at all.
func replace(name string, data []byte) error {
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

// Killed returns how many processes the item of sequence seq killed.
func (c *Record) Killed(seq uint64) int {
	if c == nil {
		return 0
	}
	return c.charged[seq]
}

// Suspects reports whether this run has suspects to work on alone.
func (c *Record) Suspects() bool { return c != nil && (c.upTo > 0 || len(c.upToOf) > 0) }

// HandOut records that this run hands out items up to sequence seq,
// before the chain gets them.
func (c *Record) HandOut(seq uint64) error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if seq <= c.mark || c.run == nil {
		return nil
	}
	if _, err := c.run.WriteAt(fmt.Appendf(nil, "%0*d", runWidth, seq), 0); err != nil {
		return fmt.Errorf("recording the items handed out: %w", err)
	}
	c.mark = seq
	return nil
}

// HandOutOf records that this run hands out the items of each fair key
// in marks (by its token; "" for no key, as HandOut) up to its sequence,
// before the chain gets them.
func (c *Record) HandOutOf(marks map[string]uint64) error {
	if c == nil {
		return nil
	}
	if err := c.HandOut(marks[""]); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var data []byte
	for k, seq := range marks {
		if k != "" && seq > c.marks[k] {
			c.marks[k] = seq
			data = fmt.Appendf(data, "%s %d\n", k, seq)
			c.lines++
		}
	}
	if len(data) == 0 || c.run == nil {
		return nil
	}
	if c.lines > 2*len(c.marks)+1024 {
		// The lines of keys whose marks rose since are dropped.
		if err := c.start(); err != nil {
			return fmt.Errorf("recording the items handed out: %w", err)
		}
		return nil
	}
	if _, err := c.run.WriteAt(data, c.size); err != nil {
		return fmt.Errorf("recording the items handed out: %w", err)
	}
	c.size += int64(len(data))
	return nil
}

// Acked records that the queue's servers confirmed the acknowledgement of
// the items of sequences done, which have no fair key, for a queue that
// keeps its acknowledged items: its consumer's record of them is written
// at most every 100 ms, and a crash may lose that much, while the
// consumer is started again after its acknowledgement floor (see Done).
// The record holds those above the floor given to Prune.
func (c *Record) Acked(done ...uint64) error {
	if c == nil || len(done) == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var added seqs.Ranges
	for _, seq := range done {
		if !c.acked.Has(seq) {
			c.acked = c.acked.Add(seq)
			added = added.Add(seq)
		}
	}
	if len(added) == 0 || c.run == nil {
		return nil
	}
	if c.ranges += len(added); c.ranges > 2*len(c.acked)+4096 {
		// The lines are written again as the ranges they make now.
		if err := c.start(); err != nil {
			return fmt.Errorf("recording the items acknowledged: %w", err)
		}
		return nil
	}
	data := appendAcked(nil, added)
	if _, err := c.run.WriteAt(data, c.size); err != nil {
		return fmt.Errorf("recording the items acknowledged: %w", err)
	}
	c.size += int64(len(data))
	return nil
}

// Done reports whether the item of sequence seq, with no fair key, was
// acknowledged, by this run or one before it that died, as Acked
// recorded: one handed out again is acknowledged again, not worked.
func (c *Record) Done(seq uint64) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.acked.Has(seq)
}

// Prune forgets the acknowledgements of the items up to floor, which the
// queue's servers have written for good.
func (c *Record) Prune(floor uint64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.acked = c.acked.Above(floor)
}

// Work runs f, the work on the item of sequence seq with no fair key
// (see WorkOf).
func (c *Record) Work(seq uint64, f func()) { c.WorkOf("", seq, f) }

// WorkOf runs f, the work on the item of sequence seq of the fair key of
// token key ("" for none): alone if the item is a suspect, with its
// sequence in the run file while it runs, and beside other items' work
// otherwise.
func (c *Record) WorkOf(key string, seq uint64, f func()) {
	upTo := c.upTo
	if key != "" {
		upTo = c.upToOf[key]
	}
	if seq > upTo {
		c.alone.RLock()
		defer c.alone.RUnlock()
		f()
		return
	}
	c.alone.Lock()
	defer c.alone.Unlock()
	c.writeAlone(seq)
	defer c.writeAlone(0)
	f()
}

// writeAlone writes seq as the suspect in work alone. A record that
// cannot be written only loses the count of what kills the process.
func (c *Record) writeAlone(seq uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inWork = seq
	if c.run != nil {
		_, _ = c.run.WriteAt(fmt.Appendf(nil, "%0*d", runWidth, seq), runAlone)
	}
}

// Close lets go of this run's record, and with clean removes it: the run
// ended without dying.
func (c *Record) Close(clean bool) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.run == nil {
		return
	}
	c.run.Close()
	c.run = nil
	if clean {
		_ = os.Remove(filepath.Join(c.dir, runName))
	}
}
