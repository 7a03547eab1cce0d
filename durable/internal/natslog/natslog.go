// Package natslog keeps what an embedded NATS server says: the server
// logs nothing anywhere else.
package natslog

import (
	"fmt"
	"strings"
	"sync"
)

// Log keeps the last warnings and errors a NATS server logged, so that
// an Open that fails, or finds a store damaged, can say what the server
// said; it is the server.Logger the server is given. Its methods are
// safe for concurrent use. The zero Log keeps nothing yet.
type Log struct {
	mu    sync.Mutex
	lines []string
	fatal bool
}

// kept is how many of the server's last warnings and errors a Log keeps.
const kept = 4

// keep keeps a line the server logged, and whether it was fatal.
func (l *Log) keep(fatal bool, format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) == kept {
		l.lines = append(l.lines[:0], l.lines[1:]...)
	}
	l.lines = append(l.lines, fmt.Sprintf(format, v...))
	l.fatal = l.fatal || fatal
}

// Failed reports whether the server logged a fatal error: it will not
// start.
func (l *Log) Failed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fatal
}

// Suffix returns ": " and the lines kept, or "" for none.
func (l *Log) Suffix() string {
	if s := l.String(); s != "" {
		return ": " + s
	}
	return ""
}

// String returns the lines kept, most recent last, or "" for none.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "; ")
}

// Warnf, Errorf and Fatalf keep what the server says, as the
// server.Logger they make; Noticef, Debugf and Tracef drop it.
func (l *Log) Warnf(format string, v ...any)  { l.keep(false, format, v...) }
func (l *Log) Errorf(format string, v ...any) { l.keep(false, format, v...) }
func (l *Log) Fatalf(format string, v ...any) { l.keep(true, format, v...) }
func (l *Log) Noticef(string, ...any)         {}
func (l *Log) Debugf(string, ...any)          {}
func (l *Log) Tracef(string, ...any)          {}
