// Package damage finds what an embedded NATS server lost of a queue's
// stream as it opened a damaged store.
//
// NATS checks, as it opens a stream, the last block file of messages,
// and any whose size its index does not expect; it reads a block up to
// the first record it cannot read, cuts the file there, and drops the
// rest of it: the records after the damage are gone with it, though
// whole. It says so in a warning, and in the stream's state only as
// messages lost (when it knew the block's last sequence) or as sequences
// deleted. A block of the expected size whose records were overwritten
// is served as it is: a record it cannot read is skipped as it is read,
// and stays in the stream's count, which NATS cannot remove it from
// short of checking every block, as it does without its index.
//
// So a queue's clean close leaves a [Record] beside the store: how many
// items its stream held, the sequences it held, and the size and time of
// each block file. The next open reads it ([Read]) and compares it with
// what the stream holds once open ([Compare]); if a block file changed
// since, it reads every message ([Unreadable]) to find those NATS serves
// but cannot read, or, once the loss is accepted, has NATS check every
// block ([Check]). The record is forgotten once the queue opens
// ([Forget]).
package damage

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// recordName is the file a clean close leaves in the store's directory.
const recordName = "evolve-durable.closed"

// Record is what a clean close knew of a queue's stream.
type Record struct {
	// Name is the stream's, and Made when it was made: a stream made
	// anew is not the one recorded.
	Name string    `json:"name"`
	Made time.Time `json:"made"`
	// Items is how many items the stream held; Msgs how many messages,
	// key markers included.
	Items uint64 `json:"items"`
	Msgs  uint64 `json:"msgs"`
	// Held is the sequences the stream held, as ranges; nil if the
	// stream had too many gaps to list.
	Held Ranges `json:"held,omitempty"`
	// Blocks is the size and time of each block file, by name.
	Blocks map[string]Block `json:"blocks"`
	// Changed says a block file changed since: Read sets it.
	Changed bool `json:"-"`
}

// Block is the size and modification time of a block file.
type Block struct {
	Size int64     `json:"size"`
	Time time.Time `json:"time"`
}

// msgs returns the directory of the messages of stream name in the store
// dir: NATS keeps the global account's streams under $G.
func msgs(dir, name string) string {
	return filepath.Join(dir, "jetstream", "$G", "streams", name, "msgs")
}

// Blocks returns the block files of stream name in the store dir.
func Blocks(dir, name string) (map[string]Block, error) {
	files, err := filepath.Glob(filepath.Join(msgs(dir, name), "*.blk"))
	if err != nil {
		return nil, err
	}
	out := make(map[string]Block, len(files))
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			return nil, err
		}
		out[filepath.Base(f)] = Block{Size: fi.Size(), Time: fi.ModTime()}
	}
	return out, nil
}

// Write writes r into the store dir, whole or not at all.
func (r *Record) Write(dir string) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	name := filepath.Join(dir, recordName)
	if err := os.WriteFile(name+".tmp", data, 0o644); err != nil {
		return err
	}
	return os.Rename(name+".tmp", name)
}

// Read reads the record a clean close left in the store dir, noting
// whether a block file of the stream changed since, and returns nil if
// there is none, or it cannot be read.
func Read(dir string) (*Record, error) {
	data, err := os.ReadFile(filepath.Join(dir, recordName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r Record
	if json.Unmarshal(data, &r) != nil || r.Name == "" {
		return nil, nil
	}
	now, err := Blocks(dir, r.Name)
	if err != nil {
		return nil, err
	}
	r.Changed = !same(r.Blocks, now)
	return &r, nil
}

// Check removes the index of stream name in the store dir, so that NATS
// checks every block as it opens the stream.
func Check(dir, name string) error {
	err := os.Remove(filepath.Join(msgs(dir, name), "index.db"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Forget removes the record from the store dir, once the store it
// describes is open: a run that dies leaves none, and the next open
// compares with nothing.
func Forget(dir string) error {
	err := os.Remove(filepath.Join(dir, recordName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// same reports whether the block files a and b are the same files, of
// the same size and time.
func same(a, b map[string]Block) bool {
	if len(a) != len(b) {
		return false
	}
	for name, x := range a {
		if y, ok := b[name]; !ok || x.Size != y.Size || !x.Time.Equal(y.Time) {
			return false
		}
	}
	return true
}

// State is what the stream holds once open: its items, its messages, the
// sequences it holds (nil if unknown), and those NATS said it lost.
type State struct {
	Items, Msgs uint64
	Held        Ranges
	Lost        []uint64
}

// Report is what a store lost: items (of how many, if known), and the
// sequences of the messages lost; Markers says the stream held key
// markers, which may be among them, lost or expired meanwhile; Unread,
// that some are still in the store, where NATS cannot read them.
type Report struct {
	Items, Of uint64
	Seqs      Ranges
	Markers   bool
	Unread    bool
}

// Compare returns what the stream lost since r was recorded, now that it
// holds now; r may be nil (the last run did not close cleanly): then only
// what NATS said it lost is known. It reports whether anything was lost.
func Compare(r *Record, now State) (Report, bool) {
	lost := Of(now.Lost)
	if r == nil {
		return Report{Items: uint64(len(now.Lost)), Seqs: lost, Markers: true}, len(now.Lost) > 0
	}
	rep := Report{Of: r.Items, Seqs: lost, Markers: r.Msgs > r.Items}
	if r.Items > now.Items {
		rep.Items = r.Items - now.Items
	}
	if rep.Items == 0 && len(now.Lost) == 0 {
		return rep, false
	}
	if r.Held != nil && now.Held != nil {
		rep.Seqs = r.Held.Minus(now.Held).Union(lost)
	}
	return rep, true
}

// Add adds to rep the items NATS holds but cannot read, at seqs.
func (rep *Report) Add(items uint64, seqs Ranges) {
	rep.Items += items
	rep.Seqs = rep.Seqs.Union(seqs)
	rep.Unread = true
}

// String says what was lost, as an error's message says it.
func (rep Report) String() string {
	var b strings.Builder
	verb := "lost"
	if rep.Unread {
		verb = "lost or unreadable"
	}
	if rep.Of > 0 {
		fmt.Fprintf(&b, "%d of its %d items %s", rep.Items, rep.Of, verb)
	} else {
		fmt.Fprintf(&b, "%d messages %s (items or key markers)", rep.Items, verb)
	}
	if len(rep.Seqs) > 0 {
		fmt.Fprintf(&b, ", at sequences %s", rep.Seqs)
		if rep.Markers && rep.Of > 0 {
			b.WriteString(" (items, and key markers lost or expired)")
		}
	}
	if rep.Unread {
		b.WriteString("; accepting the loss has NATS cut each damaged block file at the first record it cannot read, and drop the rest of the file")
	}
	return b.String()
}
