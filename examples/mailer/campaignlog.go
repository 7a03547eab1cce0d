package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// campaignLog is the file the buffer agent writes the receipts to, a batch
// at a time, one JSON receipt a line (NDJSON). Each batch is flushed to
// the file before the next is taken, so the file holds whole batches. It
// is used by one flush at a time, as the buffer agent calls it.
type campaignLog struct {
	path string
	f    *os.File
	w    *bufio.Writer
}

// createLog creates (or empties) the campaign log at path, or a new file in
// the temporary directory if path is "".
func createLog(path string) (*campaignLog, error) {
	var f *os.File
	var err error
	if path == "" {
		f, err = os.CreateTemp("", "mailer-*.ndjson")
	} else {
		f, err = os.Create(path)
	}
	if err != nil {
		return nil, fmt.Errorf("campaign log: %w", err)
	}
	return &campaignLog{path: f.Name(), f: f, w: bufio.NewWriter(f)}, nil
}

// write appends a batch of receipts: the buffer agent's flush.
func (l *campaignLog) write(ctx context.Context, batch []receipt) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	enc := json.NewEncoder(l.w)
	enc.SetEscapeHTML(false) // Message-IDs keep their < and >
	for _, r := range batch {
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("campaign log: %w", err)
		}
	}
	if err := l.w.Flush(); err != nil {
		return fmt.Errorf("campaign log: %w", err)
	}
	return nil
}

// close closes the file.
func (l *campaignLog) close() error {
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("campaign log: %w", err)
	}
	return nil
}

// readLog reads the receipts in the campaign log at path back.
func readLog(path string) ([]receipt, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("campaign log: %w", err)
	}
	defer f.Close()
	var out []receipt
	dec := json.NewDecoder(bufio.NewReader(f))
	for {
		var r receipt
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("campaign log %s, receipt %d: %w", path, len(out)+1, err)
		}
		out = append(out, r)
	}
}
