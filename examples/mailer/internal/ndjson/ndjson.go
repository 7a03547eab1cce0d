// Package ndjson writes records to a file a batch at a time, one JSON
// record a line, and reads them back: the mailer's campaign log.
package ndjson

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Writer appends batches of records of type T to a file. Each batch is
// flushed to the file before the next is taken, so the file holds whole
// batches. It is used by one writer at a time, as a buffer agent's flush
// is. Its errors start with its name.
type Writer[T any] struct {
	Path string // the file's
	name string
	f    *os.File
	w    *bufio.Writer
}

// Create creates (or empties) the file at path, or a new file in the
// temporary directory named after pattern (as os.CreateTemp's) if path is
// "", for a Writer called name.
func Create[T any](name, path, pattern string) (*Writer[T], error) {
	var f *os.File
	var err error
	if path == "" {
		f, err = os.CreateTemp("", pattern)
	} else {
		f, err = os.Create(path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Writer[T]{Path: f.Name(), name: name, f: f, w: bufio.NewWriter(f)}, nil
}

// Write appends a batch of records: a buffer agent's flush.
func (l *Writer[T]) Write(ctx context.Context, batch []T) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	enc := json.NewEncoder(l.w)
	enc.SetEscapeHTML(false) // Message-IDs keep their < and >
	for _, r := range batch {
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("%s: %w", l.name, err)
		}
	}
	if err := l.w.Flush(); err != nil {
		return fmt.Errorf("%s: %w", l.name, err)
	}
	return nil
}

// Close closes the file.
func (l *Writer[T]) Close() error {
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("%s: %w", l.name, err)
	}
	return nil
}

// Read reads the records of the file at path back; its errors start with
// name.
func Read[T any](name, path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	var out []T
	dec := json.NewDecoder(bufio.NewReader(f))
	for {
		var r T
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("%s %s, record %d: %w", name, path, len(out)+1, err)
		}
		out = append(out, r)
	}
}
