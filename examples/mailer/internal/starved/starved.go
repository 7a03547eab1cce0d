// Package starved says, in lines for the user, when the mailer's emails
// wait with no worker registered, and when they fail for want of one.
package starved

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// Every is how often the master looks for emails waiting with no
// worker registered.
const Every = 200 * time.Millisecond

// The states Watch says a line for: emails wait with no worker
// registered, outside the remote stage (they enter only as workers can
// start them) or in it (where they fail for good after -wait).
const (
	fed     = iota // a worker is registered, or no email waits
	idle           // no worker, emails wait to enter the stage
	waiting        // no worker, emails wait in the stage
)

// Watch tells the user, in a line on out, when emails wait with no
// worker registered: how to start one, and when those in the stage fail
// for want of one (-wait after they began waiting); then when they do fail
// so, with their count, and when a worker has registered again. Only its
// watcher's goroutine calls note and flush; dead is called on the stage's.
type Watch struct {
	Out     io.Writer
	Wait    time.Duration
	Command func() string // how to start a worker

	noWorker atomic.Int64 // the emails failed for good with remote.ErrNoWorker
	said     int64        // noWorker, as last said
	state    int
	deadline time.Time // when the emails in the stage fail, in state waiting
}

// NoWorker counts an email that failed for good for want of a worker
// (remote.ErrNoWorker): the remote stage's dead letters tell it. It is
// safe to call from any goroutine.
func (s *Watch) NoWorker() { s.noWorker.Add(1) }

// Stage is what Note needs of the remote stage's status: its workers
// registered, and its emails waiting in it for one.
type Stage struct {
	Workers, Waiting int
}

// Note takes the stage's status st at now, and pending, whether emails
// are still to be sent, and says what changed.
func (s *Watch) Note(st Stage, pending bool, now time.Time) {
	s.Flush()
	state := fed
	switch {
	case st.Workers > 0:
	case st.Waiting > 0:
		state = waiting
	case pending:
		state = idle
	}
	if state == s.state {
		return
	}
	switch state {
	case fed:
		if st.Workers > 0 {
			fmt.Fprintf(s.Out, "mailer: %d workers registered: the emails go on\n", st.Workers)
		}
	case idle:
		fmt.Fprintf(s.Out, "mailer: no worker registered: the emails wait for one; start one with: %s\n", s.Command())
	case waiting:
		s.deadline = now.Add(s.Wait)
		fmt.Fprintf(s.Out, "mailer: no worker registered: %d emails wait in the stage for one, and fail for good at %s (-wait %v) unless one registers; start one with: %s\n",
			st.Waiting, s.deadline.Format(time.TimeOnly), s.Wait, s.Command())
	}
	s.state = state
}

// Flush says how many emails have failed for want of a worker, if more
// have since it last said.
func (s *Watch) Flush() {
	if n := s.noWorker.Load(); n > s.said {
		s.said = n
		fmt.Fprintf(s.Out, "mailer: %d emails have failed for good for want of a worker (remote.ErrNoWorker): none could take them within -wait %v\n", n, s.Wait)
	}
}

// Idle says, before the first Note, that no worker is registered and
// emails wait: the master that starts none has said so already.
func (s *Watch) Idle() { s.state = idle }
