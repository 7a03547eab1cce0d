package durable

import (
	"fmt"
	"strings"
	"sync"
)

// serverLog keeps the last warnings and errors an embedded NATS server
// logged, so that an Open that fails can say why; the server logs nothing
// else anywhere.
type serverLog struct {
	mu    sync.Mutex
	lines []string
	fatal bool
}

// keptLines is how many of the server's last warnings and errors a
// serverLog keeps.
const keptLines = 4

func (l *serverLog) keep(fatal bool, format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) == keptLines {
		l.lines = append(l.lines[:0], l.lines[1:]...)
	}
	l.lines = append(l.lines, fmt.Sprintf(format, v...))
	l.fatal = l.fatal || fatal
}

// failed reports whether the server logged a fatal error: it will not
// start.
func (l *serverLog) failed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fatal
}

// suffix returns ": " and the lines kept, or "" for none.
func (l *serverLog) suffix() string {
	if s := l.String(); s != "" {
		return ": " + s
	}
	return ""
}

// String returns the lines kept, most recent last, or "" for none.
func (l *serverLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "; ")
}

// Noticef ignores a notice.
func (l *serverLog) Noticef(string, ...any) {}

// Warnf keeps a warning.
func (l *serverLog) Warnf(format string, v ...any) { l.keep(false, format, v...) }

// Fatalf keeps a fatal error.
func (l *serverLog) Fatalf(format string, v ...any) { l.keep(true, format, v...) }

// Errorf keeps an error.
func (l *serverLog) Errorf(format string, v ...any) { l.keep(false, format, v...) }

// Debugf ignores a debug line.
func (l *serverLog) Debugf(string, ...any) {}

// Tracef ignores a trace line.
func (l *serverLog) Tracef(string, ...any) {}
