package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
)

// filePattern matches the batch files; batchName makes their names.
const filePattern = "batch-*.ndjson"

// batchName returns the name of the n-th batch file, counted from 1.
func batchName(n int) string { return fmt.Sprintf("batch-%06d.ndjson", n) }

// files writes each batch of records to a file of its own in a directory,
// one JSON object a line (NDJSON). The buffer agent flushes one batch at a
// time, so the files are numbered in the order the batches were cut.
type files struct {
	dir     string
	written atomic.Int64 // files written, and those there before
	before  int64        // files there before
}

// write writes batch to the next file. It writes a temporary file, syncs
// it and renames it, so a batch file is either whole or absent.
func (fs *files) write(ctx context.Context, batch []record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	name := filepath.Join(fs.dir, batchName(int(fs.written.Load())+1))
	tmp := name + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, r := range batch {
		if err = enc.Encode(r); err != nil {
			break
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		// On the disk before it has its name, so that even a power loss
		// leaves the batch whole or absent.
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		return errors.Join(err, removeIfThere(tmp))
	}
	fs.written.Add(1)
	return nil
}

// removeIfThere removes name, if it exists.
func removeIfThere(name string) error {
	if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// prepareOut returns the directory to write the batch files to: dir,
// created if need be, which must not hold batch files already (they would be
// mixed up with this run's); or, for "", a new temporary directory.
func prepareOut(dir string) (string, error) {
	if dir == "" {
		return os.MkdirTemp("", "warehouse-*")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	old, err := filepath.Glob(filepath.Join(dir, filePattern))
	if err != nil {
		return "", err
	}
	if len(old) > 0 {
		return "", fmt.Errorf("%s already holds %d batch files (%s, ...): remove them or choose another directory",
			dir, len(old), filepath.Base(old[0]))
	}
	return dir, nil
}
