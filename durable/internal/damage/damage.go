// Package damage finds what an embedded NATS server lost of a queue's
// stream as it opened a damaged store.
//
// NATS checks, as it opens a stream, the last block of messages, and any
// block whose size its index does not expect; it reads a block up to the
// first record it cannot read, cuts the block there, and drops the rest of
// it: the records after the damage are gone with it, though whole. It
// says so in a warning, and in the stream's state only as messages lost
// (when it knew the block's last sequence) or as sequences deleted. A
// block whose size is as expected, but whose records were overwritten,
// is checked only as it is read, and its damage skipped then.
//
// So a queue's clean close leaves a [Record] beside the store: how many
// items its stream held, the sequences it held, and the size and time of
// each block file. The next open reads it ([Read]): a block file that
// changed since makes NATS check every block (its index is removed), and
// what the stream holds once open is compared with the record
// ([Compare]); the record is forgotten once the loss, if any, is
// accepted ([Forget]).
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

// Read reads the record a clean close left in the store dir, and returns
// nil if there is none, or it cannot be read. If a block file of the
// stream recorded changed since, it removes the stream's index, so that
// NATS checks every block as it opens the stream.
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
	if !same(r.Blocks, now) {
		err := os.Remove(filepath.Join(msgs(dir, r.Name), "index.db"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return &r, nil
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
// markers, which may be among them, lost or expired meanwhile.
type Report struct {
	Items, Of uint64
	Seqs      Ranges
	Markers   bool
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

// String says what was lost, as an error's message says it.
func (rep Report) String() string {
	var b strings.Builder
	if rep.Of > 0 {
		fmt.Fprintf(&b, "%d of its %d items lost", rep.Items, rep.Of)
	} else {
		fmt.Fprintf(&b, "%d messages lost (items or key markers)", rep.Items)
	}
	if len(rep.Seqs) > 0 {
		fmt.Fprintf(&b, ", at sequences %s", rep.Seqs)
		if rep.Markers && rep.Of > 0 {
			b.WriteString(" (items, and key markers lost or expired)")
		}
	}
	return b.String()
}
