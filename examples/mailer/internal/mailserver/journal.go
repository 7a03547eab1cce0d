package mailserver

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// openJournal reads the Message-IDs of the POSTs of the runs before from
// the journal at path, if there is one, counting each delivered the first
// time and refused after, and opens it to append this run's to. A line a
// crash cut short is cut off: its POST was not answered, and comes again.
// Only Start calls it, before the server serves.
func (m *Server) openJournal(path string) error {
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	whole := bytes.LastIndexByte(data, '\n') + 1
	if whole < len(data) {
		if err := os.Truncate(path, int64(whole)); err != nil {
			return fmt.Errorf("cutting off a line cut short: %w", err)
		}
	}
	for line := range bytes.Lines(data[:whole]) {
		id := string(bytes.TrimSuffix(line, []byte("\n")))
		if m.posts[id]++; m.posts[id] == 1 {
			m.before.Delivered++
		} else {
			m.before.Refused++
		}
	}
	m.total = m.before
	m.journal, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	return err
}

// keep appends id to the journal, if there is one, before the POST is
// counted and answered: a POST answered is in the journal. The journal is
// not synced: it outlives the process, killed at any moment, not the
// machine. The caller holds m.mu.
func (m *Server) keep(id string) error {
	if m.journal == nil {
		return nil
	}
	if _, err := m.journal.WriteString(id + "\n"); err != nil {
		return fmt.Errorf("mail server: journal: %w", err)
	}
	return nil
}

// closeJournal closes the journal, if there is one.
func (m *Server) closeJournal() error {
	if m.journal == nil {
		return nil
	}
	return m.journal.Close()
}
