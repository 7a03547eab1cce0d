package main

import (
	"strings"
	"sync"

	"github.com/rs/zerolog"
)

// logPane keeps the last lines logged, for the display to show: on a
// terminal the log goes here rather than over the view. It is safe for
// concurrent use.
type logPane struct {
	mu    sync.Mutex
	lines []string
	keep  int
}

// newLogPane returns an empty pane that keeps keep lines.
func newLogPane(keep int) *logPane { return &logPane{keep: keep} }

// Write takes one or more log lines; the oldest beyond keep are dropped.
func (p *logPane) Write(b []byte) (int, error) {
	text := strings.TrimRight(string(b), "\n")
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lines = append(p.lines, strings.Split(text, "\n")...)
	if over := len(p.lines) - p.keep; over > 0 {
		p.lines = append(p.lines[:0:0], p.lines[over:]...)
	}
	return len(b), nil
}

// tail returns the last n lines, oldest first.
func (p *logPane) tail(n int) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.lines[max(len(p.lines)-n, 0):]...)
}

// logger returns a logger that writes readable lines to p.
func (p *logPane) logger() zerolog.Logger {
	w := zerolog.ConsoleWriter{Out: p, NoColor: true, TimeFormat: "15:04:05", FieldsExclude: []string{"pid"}}
	return zerolog.New(w).With().Timestamp().Logger()
}
