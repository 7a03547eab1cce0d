// Package scale keeps a number of worker processes between a least and a
// most, at what a remote stage says it wants (remote.Config.OnWant): the
// mailer's -autoscale.
package scale

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Fleet starts and stops workers. Start starts one and returns its name;
// Stop asks the one named to leave gracefully (handing back what it
// holds) and waits for it.
type Fleet interface {
	Start() (string, error)
	Stop(name string) error
}

// Scaler follows the wants of a stage within [Least, Most]. Want may be
// called from any goroutine, and never blocks; Run applies the wants, one
// at a time, the latest first.
type Scaler struct {
	least, most int
	fleet       Fleet
	out         io.Writer
	begin       time.Time
	wants       chan int // the latest want, not yet applied

	mu      sync.Mutex
	running []string // oldest first
	peak    int
	changes int
	stopped map[string]bool
}

// New returns a Scaler of the workers fleet starts, of which the ones
// named in running already run, that keeps between least and most of them
// and writes a line to out for each change, timed from begin.
func New(least, most int, fleet Fleet, running []string, out io.Writer, begin time.Time) *Scaler {
	return &Scaler{least: least, most: most, fleet: fleet, out: out, begin: begin,
		wants: make(chan int, 1), running: append([]string(nil), running...), peak: len(running), stopped: map[string]bool{}}
}

// Parse reads "MIN:MAX", 1 <= MIN <= MAX <= limit.
func Parse(s string, limit int) (least, most int, err error) {
	lo, hi, ok := strings.Cut(s, ":")
	if ok {
		_, err = fmt.Sscanf(lo+" "+hi, "%d %d", &least, &most)
	}
	switch {
	case !ok || err != nil:
		return 0, 0, fmt.Errorf("want MIN:MAX, two whole numbers, not %q", s)
	case least < 1 || most < least || most > limit:
		return 0, 0, fmt.Errorf("want 1 <= MIN <= MAX <= %d, not %q", limit, s)
	}
	return least, most, nil
}

// Want is the stage's hook: it wants n workers. The latest want replaces
// one not yet applied.
func (s *Scaler) Want(n int) {
	for {
		select {
		case s.wants <- n:
			return
		default:
		}
		select {
		case <-s.wants:
		default:
		}
	}
}

// Run applies the wants until quit is closed: it starts workers up to the
// want, or stops the newest down to it, within [least, most].
func (s *Scaler) Run(quit <-chan struct{}) {
	for {
		select {
		case <-quit:
			return
		case n := <-s.wants:
			s.apply(n)
		}
	}
}

// apply brings the workers to want n, within bounds, and says so.
func (s *Scaler) apply(n int) {
	target := min(max(n, s.least), s.most)
	var did []string
	var err error
	for err == nil && s.count() < target {
		var name string
		if name, err = s.fleet.Start(); err == nil {
			s.mu.Lock()
			s.running = append(s.running, name)
			s.peak = max(s.peak, len(s.running))
			s.mu.Unlock()
			did = append(did, "started "+name)
		}
	}
	for err == nil && s.count() > target {
		s.mu.Lock()
		name := s.running[len(s.running)-1]
		s.running = s.running[:len(s.running)-1]
		s.stopped[name] = true
		s.mu.Unlock()
		err = s.fleet.Stop(name)
		did = append(did, "stopped "+name)
	}
	if did == nil && err == nil {
		return // as wanted already
	}
	s.mu.Lock()
	s.changes++
	s.mu.Unlock()
	if err != nil {
		did = append(did, err.Error())
	}
	fmt.Fprintf(s.out, "mailer: %v: the stage wants %d workers: %s (%d running)\n",
		time.Since(s.begin).Round(100*time.Millisecond), n, strings.Join(did, ", "), s.count())
}

// count counts the workers running.
func (s *Scaler) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.running)
}

// Stopped reports whether the worker named was stopped for want of work.
func (s *Scaler) Stopped(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped[name]
}

// Summary says how the workers went: the most at once and the changes.
func (s *Scaler) Summary() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("%d to %d workers as the stage wanted; at most %d at once, %d changes", s.least, s.most, s.peak, s.changes)
}
