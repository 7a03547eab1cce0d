package main

import (
	"fmt"
	"os"
)

// output is the file the lines go to. Its lines, concatenated, are the keys
// typed, in order: a key is never a newline.
type output struct {
	path string
	f    *os.File
}

// createOutput creates or truncates the file at path. Its error names the
// path.
func createOutput(path string) (*output, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot write the output file %s: %w", path, err)
	}
	return &output{path: path, f: f}, nil
}

// appendLine writes line and a newline. The buffer agent flushes one line at
// a time, so appendLine is never called twice at once.
func (o *output) appendLine(line []rune) error {
	if _, err := o.f.WriteString(string(line) + "\n"); err != nil {
		return fmt.Errorf("appending a line to %s: %w", o.path, err)
	}
	return nil
}

// close closes the file; its error names the path.
func (o *output) close() error {
	if err := o.f.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", o.path, err)
	}
	return nil
}
