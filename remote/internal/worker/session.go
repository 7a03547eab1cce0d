package worker

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/evolvekit/evolve/remote/internal/wire"
)

// Session is a worker's protocol with its master, as a value: whether it
// has joined, is rejoining or leaving, what it was told as it joined, what
// it heard and said since the last heartbeat, and how its rejoining backs
// off. [Session.Step] takes one event at an instant and returns what to
// do, as data; the worker's actor performs it. Nothing in a Session reads a
// clock, starts a goroutine or draws a global random number: time comes in
// with each event, and the jitter of its backoff from a generator seeded
// as it is made. So its tables run at made-up instants.
//
// A worker that loses its master (a connection between them broke, it
// heard nothing for wire.Misses heartbeats, or the master no longer knows
// it) registers again, with backoff, until its rejoin window has passed;
// then it ends with ErrMasterGone. Each join is a generation of the worker:
// what it held in the one before is given back (the master queues it
// again), and the actor cancels that work and drops its outcomes.
type Session struct {
	master, stage string
	slots         int           // the worker's
	prefetch      int           // the tasks it asks for beyond its slots
	rejoin        time.Duration // how long it tries to rejoin
	connect       time.Duration // how long it tries to join at first
	rng           *rand.Rand    // the backoff's jitter

	phase    phase
	finished bool // the master said the stage finished
	id, inc  uint64
	nonce    uint64        // of the latest Register
	every    time.Duration // the heartbeat interval, as joined
	lease    time.Duration // how long a task may run, as joined; 0 if not told
	heard    bool          // from the master, since the last heartbeat
	sent     bool          // to the master, since the last heartbeat
	quiet    int           // heartbeats in a row that heard nothing
	armed    uint64        // the latest Arm's tag
	why      string        // why the master was lost
	lost     time.Time     // when
	until    time.Time     // when rejoining, or joining, gives up
	backoff  time.Duration // before the next attempt to rejoin
	tries    uint64        // attempts to rejoin
}

// phase is where a session is.
type phase uint8

const (
	joining   phase = iota // registered, not yet welcomed
	joined                 // welcomed: it takes tasks and beats
	rejoining              // it lost its master and registers again
	leaving                // it said it leaves, and waits for the answer
	ended                  // it has said why it ends
)

// Rejoining backs off from rejoinFirst to rejoinMost between attempts.
const (
	rejoinFirst = 50 * time.Millisecond
	rejoinMost  = time.Second
)

// fallbackHeartbeat is the interval of a Welcome whose own is out of
// range: the master's default.
const fallbackHeartbeat = time.Second

// SessionConfig is what a session knows of its worker.
type SessionConfig struct {
	Master   string        // the master's address
	Stage    string        // the stage's name
	Slots    int           // the tasks the worker runs at once
	Prefetch int           // the tasks it would hold beyond its slots
	Rejoin   time.Duration // how long it tries to rejoin a master it lost
	Connect  time.Duration // how long it tries to join at first
}

// NewSession returns the session of a worker that cfg describes, not yet
// registered, whose backoff draws its jitter from seed.
func NewSession(cfg SessionConfig, seed uint64) *Session {
	return &Session{master: cfg.Master, stage: cfg.Stage, slots: cfg.Slots, prefetch: cfg.Prefetch,
		rejoin: cfg.Rejoin, connect: cfg.Connect, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Events: what the actor tells a session.
type (
	// Event is what happened to a worker, as Step takes it.
	Event interface{ event() }
	// Start says the worker's actor started: it registers.
	Start struct{}
	// Welcomed is the master's answer to a Register: the worker's ID, or
	// why it was refused; the master's incarnation and heartbeat, the
	// Register's nonce, the prefetch granted, and how many tasks the
	// worker still owes answers for.
	Welcomed struct {
		Worker, Incarnation, Nonce uint64
		Refused                    string
		Heartbeat, Lease           time.Duration
		Prefetch                   int
		Owed                       int
		// Asked is how many tasks the master counted the Register's ask
		// for: the worker asks for the rest of its room.
		Asked int
	}
	// Pulsed is the master's answer to a Beat.
	Pulsed struct {
		Worker, Incarnation uint64
		Known               bool
	}
	// Tick is the clock an Arm set, with the Arm's tag.
	Tick struct{ Tag uint64 }
	// Probed says whether the master's address took a connection, in the
	// attempt to rejoin numbered Attempt.
	Probed struct {
		Attempt uint64
		Err     error
	}
	// Quit says the worker's context ended: it leaves.
	Quit struct{}
	// Finished says the master told the worker the stage finished, or
	// acknowledged its Leave.
	Finished struct{}
	// Gone says the master's actor ended: Stopped for a master that
	// stopped, with Why in words.
	Gone struct {
		Stopped bool
		Why     string
	}
)

func (Start) event()    {}
func (Welcomed) event() {}
func (Pulsed) event()   {}
func (Tick) event()     {}
func (Probed) event()   {}
func (Quit) event()     {}
func (Finished) event() {}
func (Gone) event()     {}

// Actions: what a session asks its actor to do, in order.
type (
	// Action is one thing Step asks for.
	Action interface{ action() }
	// Register asks to watch the master and send it a Register.
	// Ask is how many tasks it asks for with it: as many as it has room
	// for on its first join, when it holds nothing; none as it rejoins,
	// when it asks once welcomed, knowing what it still owes.
	Register struct {
		Nonce uint64
		Ask   int
	}
	// Ask asks to send an Ask for N more tasks.
	Ask struct{ N int }
	// Beat asks to send a Beat.
	Beat struct{}
	// Probe asks to dial the master's address for at most Within, and to
	// tell how it went with a Probed.
	Probe struct {
		Attempt uint64
		Within  time.Duration
	}
	// Arm asks for a Tick with Tag after Delay, in the place of any
	// pending.
	Arm struct {
		Tag   uint64
		Delay time.Duration
	}
	// Quiet asks the node's guard to let a new connection of the master
	// replace its old one once that has been silent for Silence.
	Quiet struct{ Silence time.Duration }
	// Joined says the worker joined, as ID: for the first time, or again
	// After it lost its master, then perhaps of Another run of the stage.
	Joined struct {
		ID       uint64
		Rejoined bool
		Another  bool
		After    time.Duration
	}
	// Lost says the worker lost its master, for Why, and tries to rejoin
	// it for Window: the work of the generation that ends is cancelled,
	// and its outcomes dropped.
	Lost struct {
		Why    string
		Window time.Duration
	}
	// Ready says how the first registration went: nil once the worker
	// joined.
	Ready struct{ Err error }
	// Leave asks to send the outcomes that ended, hand back what the
	// worker holds, and say it leaves.
	Leave struct{}
	// Over says the stage finished.
	Over struct{}
	// End says why the worker ends: nil for the stage finished or the
	// worker's context ended. Unwatch asks to drop the master from those
	// watching the worker, which never joined it (or lost it).
	End struct {
		Err     error
		Unwatch bool
	}
)

func (Register) action() {}
func (Ask) action()      {}
func (Beat) action()     {}
func (Probe) action()    {}
func (Arm) action()      {}
func (Quiet) action()    {}
func (Joined) action()   {}
func (Lost) action()     {}
func (Ready) action()    {}
func (Leave) action()    {}
func (Over) action()     {}
func (End) action()      {}

// Step takes e, which happened at instant at, and returns what to do.
func (s *Session) Step(at time.Time, e Event) []Action {
	switch e := e.(type) {
	case Start:
		s.until, s.backoff = at.Add(s.connect), rejoinFirst
		return s.register([]Action{s.arm(s.connect)})
	case Welcomed:
		s.heard = true
		return s.welcome(at, e)
	case Pulsed:
		s.heard = true
		if s.phase == joined && e.Worker == s.id && (!e.Known || e.Incarnation != s.inc) {
			return s.lose(at, "it no longer knows the worker")
		}
	case Tick:
		return s.tick(at, e)
	case Probed:
		if s.phase == rejoining && e.Attempt == s.tries && e.Err == nil {
			return s.register(nil)
		}
	case Quit:
		if s.phase != joined {
			return s.end(nil, nil)
		}
		s.phase, s.sent = leaving, true
		return []Action{Leave{}}
	case Finished:
		s.heard = true
		if !s.finished {
			s.finished = true
			return []Action{Over{}}
		}
	case Gone:
		return s.gone(at, e)
	}
	return nil
}

// Hear notes that the master said something, as its tasks: a sign of
// life.
func (s *Session) Hear() { s.heard = true }

// Spoke notes that the worker said something to the master, its outcomes:
// it need not beat.
func (s *Session) Spoke() { s.sent = true }

// Takes reports whether tasks for the worker id of the master's
// incarnation inc are the worker's to run: it has joined as id with that
// incarnation, and is not leaving.
func (s *Session) Takes(inc, id uint64) bool {
	return s.phase == joined && inc == s.inc && id == s.id
}

// Reports reports whether the worker sends the outcomes that end: it has
// joined, and is not leaving.
func (s *Session) Reports() bool { return s.phase == joined }

// ID returns the worker's ID as it joined, and the master's incarnation.
func (s *Session) ID() (id, inc uint64) { return s.id, s.inc }

// Lease returns how long a task may run before the master takes it back,
// as the master said as the worker last joined: 0 before that.
func (s *Session) Lease() time.Duration { return s.lease }

// register asks for a Register with a nonce of its own, after acts: only
// the Welcome to the latest counts.
func (s *Session) register(acts []Action) []Action {
	s.nonce++
	s.sent = true
	r := Register{Nonce: s.nonce}
	if s.phase == joining {
		r.Ask = s.slots + s.prefetch
	}
	return append(acts, r)
}

// welcome takes the master's answer to the latest Register: the worker
// asks for as many tasks as it has room for, and its heartbeat starts.
func (s *Session) welcome(at time.Time, m Welcomed) []Action {
	if (s.phase != joining && s.phase != rejoining) || m.Nonce != s.nonce {
		return nil
	}
	if m.Refused != "" {
		err := fmt.Errorf("remote: the master at %s refused the worker: %s", s.master, m.Refused)
		switch {
		case s.phase == joining:
			s.phase = ended
			return []Action{Ready{Err: err}}
		case m.Refused == wire.StageFinished:
			return s.end(nil, nil)
		}
		return s.end(err, nil)
	}
	hello := Joined{ID: m.Worker}
	if s.phase == rejoining {
		hello.Rejoined, hello.Another, hello.After = true, m.Incarnation != s.inc, at.Sub(s.lost)
	}
	s.phase, s.id, s.inc, s.lease = joined, m.Worker, m.Incarnation, max(m.Lease, 0)
	s.every, s.quiet, s.heard, s.sent = interval(m.Heartbeat), 0, true, false
	acts := []Action{hello, Quiet{Silence: wire.Misses * s.every}}
	if free := s.slots + min(s.prefetch, m.Prefetch) - m.Owed - m.Asked; free > 0 {
		s.sent = true
		acts = append(acts, Ask{N: free})
	}
	return append(acts, s.arm(s.every), Ready{})
}

// interval returns the heartbeat interval a Welcome names, or the
// fallback for one out of range.
func interval(d time.Duration) time.Duration {
	if d < time.Millisecond || d > time.Hour {
		return fallbackHeartbeat
	}
	return d
}

// arm asks for the clock to tick after d, in the place of any tick
// pending.
func (s *Session) arm(d time.Duration) Arm {
	s.armed++
	return Arm{Tag: s.armed, Delay: d}
}

// tick takes the clock: a heartbeat while joined, another attempt while
// rejoining. A tick of an earlier Arm is stale.
func (s *Session) tick(at time.Time, t Tick) []Action {
	if t.Tag != s.armed {
		return nil
	}
	switch s.phase {
	case joined:
		return s.beat(at)
	case rejoining:
		return s.attempt(at, nil)
	case joining:
		return s.retry(at)
	}
	return nil
}

// retry registers again, while joining for the first time, after the
// stage was not found: a master's node may listen a moment before its
// stage runs. Once the connect window has passed, the first registration
// fails.
func (s *Session) retry(at time.Time) []Action {
	if at.Before(s.until) {
		return s.register([]Action{s.arm(s.until.Sub(at))})
	}
	s.phase = ended
	if s.why == "" {
		return []Action{Ready{Err: fmt.Errorf("%w at %s: no answer to the registration within %v", ErrUnreachable, s.master, s.connect)}}
	}
	return []Action{Ready{Err: fmt.Errorf("%w: no stage named %q runs at %s (or it ended before the worker joined), for %v", ErrUnreachable, s.stage, s.master, s.connect)}}
}

// beat is one heartbeat of a joined worker: one that has sent nothing
// since the last, or heard nothing, sends a Beat; one that has heard
// nothing for wire.Misses heartbeats in a row has lost its master.
func (s *Session) beat(at time.Time) []Action {
	if s.heard {
		s.quiet = 0
	} else {
		s.quiet++
	}
	if s.quiet >= wire.Misses {
		return s.lose(at, fmt.Sprintf("heard nothing from it for %v", time.Duration(s.quiet)*s.every))
	}
	var acts []Action
	if !s.heard || !s.sent {
		acts = append(acts, Beat{})
	}
	s.heard, s.sent = false, len(acts) > 0
	return append(acts, s.arm(s.every))
}

// gone takes the news that the master's actor ended. A master that
// stopped has ended its stage (its Finished may come after this news, or
// not at all); one whose node went away, or whose connection broke, is
// lost, and the worker rejoins it. Before the worker is welcomed, the news
// means that no such stage runs there, or not yet (protoactor's remote
// reports a stage that never ran as stopped too): the worker registers
// again after a backoff, until its connect window has passed; a master
// that went away as it started is rejoined. While the worker rejoins, the
// news is of an attempt, and the next one follows.
func (s *Session) gone(at time.Time, g Gone) []Action {
	switch s.phase {
	case rejoining, ended:
		return nil
	case joining:
		if !g.Stopped && !s.finished {
			return s.lose(at, fmt.Sprintf("it stopped answering before the worker joined (%s)", g.Why))
		}
		// No such stage runs there, or not yet: look again after a backoff.
		s.why = "no stage"
		wait := min(s.backoff, max(s.until.Sub(at), 0))
		s.backoff = min(2*s.backoff, rejoinMost)
		return []Action{s.arm(wait)}
	case joined:
		if !g.Stopped && !s.finished {
			return s.lose(at, fmt.Sprintf("it stopped answering (%s)", g.Why))
		}
	}
	var err error
	if !g.Stopped && !s.finished {
		err = fmt.Errorf("%w: %s stopped answering (%s)", ErrMasterGone, s.master, g.Why)
	}
	return s.end(err, nil)
}

// lose starts rejoining a master the worker lost, for why: a new
// generation, and an attempt at once.
func (s *Session) lose(at time.Time, why string) []Action {
	s.phase, s.why, s.lost = rejoining, why, at
	s.until = at.Add(s.rejoin)
	s.backoff = rejoinFirst
	return s.attempt(at, []Action{Lost{Why: why, Window: s.rejoin}})
}

// attempt tries to rejoin once, after acts, unless the window has passed:
// it asks for the master's address to be probed, which registers if it
// takes a connection, and for the next attempt after the backoff, with
// jitter, so that workers spread. The probe keeps protoactor from opening
// a connection, and reporting it lost, for each attempt at an address that
// refuses.
func (s *Session) attempt(at time.Time, acts []Action) []Action {
	left := s.until.Sub(at)
	if left <= 0 {
		return s.end(fmt.Errorf("%w: %s: %s, and it did not come back within %v", ErrMasterGone, s.master, s.why, s.rejoin), acts)
	}
	s.tries++
	acts = append(acts, Probe{Attempt: s.tries, Within: max(min(s.backoff, left), rejoinFirst)})
	wait := s.backoff/2 + time.Duration(s.rng.Int64N(int64(s.backoff/2)+1))
	s.backoff = min(2*s.backoff, rejoinMost)
	return append(acts, s.arm(min(wait, left)))
}

// end says why the worker ends, after acts. A worker that ends with no
// master joined stops that master from being told.
func (s *Session) end(err error, acts []Action) []Action {
	unwatch := s.phase != joined && s.phase != leaving
	s.phase = ended
	return append(acts, End{Err: err, Unwatch: unwatch})
}
