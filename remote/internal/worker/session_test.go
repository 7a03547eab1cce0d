package worker

import (
	"errors"
	"testing"
	"time"

	"github.com/evolvekit/evolve/remote/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tables below step sessions at made-up instants: t0 and offsets from
// it. Their workers have 4 slots and ask for a prefetch of 4; their master
// beats every second.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const (
	hb      = time.Second
	window  = time.Minute
	connect = 5 * time.Second
)

// at is t0 + d.
func at(d time.Duration) time.Time { return t0.Add(d) }

// newTestSession returns a session of the tables' worker, its jitter drawn
// from seed 1.
func newTestSession() *Session {
	return NewSession(SessionConfig{Master: "10.0.0.5:7070", Stage: "double", Slots: 4, Prefetch: 4, Rejoin: window, Connect: connect}, 1)
}

// welcome is the master's answer to the latest Register of s, as worker
// id of incarnation inc, with a prefetch of 2.
func welcome(s *Session, id, inc uint64) Welcomed {
	return Welcomed{Worker: id, Incarnation: inc, Nonce: s.nonce, Heartbeat: hb, Prefetch: 2}
}

// joinedSession returns a session welcomed as worker 7 of incarnation 99
// at t0, and the tag of its heartbeat's Arm.
func joinedSession(t *testing.T) (*Session, uint64) {
	t.Helper()
	s := newTestSession()
	require.Equal(t, []Action{Arm{Tag: 1, Delay: connect}, Register{Nonce: 1, Ask: 8}}, s.Step(t0, Start{}),
		"it registers, asking for its 4 slots and the 4 of prefetch it wants, and gives up after its connect window")
	acts := s.Step(t0, welcome(s, 7, 99)) // from a master that counts no ask of a Register
	require.Equal(t, []Action{
		Joined{ID: 7},
		Quiet{Silence: wire.Misses * hb},
		Ask{N: 6}, // 4 slots and the 2 of prefetch granted, of the 4 it wanted
		Arm{Tag: 2, Delay: hb},
		Ready{},
	}, acts)
	return s, 2
}

// armOf returns the Arm among acts, and fails if there is none.
func armOf(t *testing.T, acts []Action) Arm {
	t.Helper()
	for _, a := range acts {
		if arm, ok := a.(Arm); ok {
			return arm
		}
	}
	t.Fatalf("no Arm in %v", acts)
	return Arm{}
}

// probeOf returns the Probe among acts, and fails if there is none.
func probeOf(t *testing.T, acts []Action) Probe {
	t.Helper()
	for _, a := range acts {
		if p, ok := a.(Probe); ok {
			return p
		}
	}
	t.Fatalf("no Probe in %v", acts)
	return Probe{}
}

func TestAWorkerAsksOnlyForWhatTheMasterDidNotCountOfItsRegister(t *testing.T) {
	for _, tc := range []struct {
		asked int
		want  []Action
	}{
		{6, nil},                 // all the room it has: 4 slots, 2 of prefetch granted
		{4, []Action{Ask{N: 2}}}, // the rest
	} {
		s := newTestSession()
		s.Step(t0, Start{})
		m := welcome(s, 7, 99)
		m.Asked = tc.asked
		var asks []Action
		for _, a := range s.Step(t0, m) {
			if _, ok := a.(Ask); ok {
				asks = append(asks, a)
			}
		}
		assert.Equal(t, tc.want, asks, "the master counted %d", tc.asked)
	}
}

func TestAWorkerJoinsAsksForWhatItHasRoomForAndBeatsWhenQuiet(t *testing.T) {
	s, tag := joinedSession(t)
	assert.True(t, s.Takes(99, 7))
	assert.False(t, s.Takes(98, 7), "another run's tasks")
	assert.False(t, s.Takes(99, 6), "another worker's")

	// The first heartbeat: it heard the Welcome and spoke (its Ask), so
	// it says nothing.
	assert.Equal(t, []Action{Arm{Tag: 3, Delay: hb}}, s.Step(at(hb), Tick{Tag: tag}))
	// The second: it heard nothing, said nothing: it beats.
	assert.Equal(t, []Action{Beat{}, Arm{Tag: 4, Delay: hb}}, s.Step(at(2*hb), Tick{Tag: 3}))
	// The master answers; the worker has tasks to report on, and does.
	assert.Empty(t, s.Step(at(2*hb+time.Millisecond), Pulsed{Worker: 7, Incarnation: 99, Known: true}))
	s.Hear()
	s.Spoke()
	assert.Equal(t, []Action{Arm{Tag: 5, Delay: hb}}, s.Step(at(3*hb), Tick{Tag: 4}), "a busy worker sends no Beat")
	// A stale tick, of an Arm replaced, does nothing.
	assert.Empty(t, s.Step(at(3*hb), Tick{Tag: 4}))
}

func TestAWelcomeOwedTasksAsksOnlyForTheRest(t *testing.T) {
	s := newTestSession()
	s.Step(t0, Start{})
	m := welcome(s, 1, 5)
	m.Owed = 6
	acts := s.Step(t0, m)
	assert.NotContains(t, acts, Ask{N: 0})
	for _, a := range acts {
		_, asks := a.(Ask)
		assert.False(t, asks, "no room: %v", acts)
	}
}

func TestAStaleOrForeignWelcomeIsIgnored(t *testing.T) {
	s := newTestSession()
	s.Step(t0, Start{})
	m := welcome(s, 1, 5)
	m.Nonce = 0
	assert.Empty(t, s.Step(t0, m), "the answer to no Register of its")
	assert.False(t, s.Reports())
	s.Step(t0, welcome(s, 1, 5))
	assert.Empty(t, s.Step(t0, welcome(s, 2, 6)), "once joined, another Welcome is stale")
	id, inc := s.ID()
	assert.Equal(t, [2]uint64{1, 5}, [2]uint64{id, inc})
}

func TestARefusedRegistrationIsTheWorkersError(t *testing.T) {
	s := newTestSession()
	s.Step(t0, Start{})
	m := welcome(s, 0, 5)
	m.Refused = "slots must be from 1 to 2, got 4"
	acts := s.Step(t0, m)
	require.Len(t, acts, 1)
	ready := acts[0].(Ready)
	assert.EqualError(t, ready.Err, "remote: the master at 10.0.0.5:7070 refused the worker: slots must be from 1 to 2, got 4")
	assert.Empty(t, s.Step(at(hb), Gone{Why: "AddressTerminated"}), "it has ended")
}

// Silence: a master that says nothing for wire.Misses heartbeats, though
// the worker beats, is lost; the worker cancels what it held and tries to
// rejoin at once.
func TestAWorkerThatHearsNothingForThreeHeartbeatsLosesItsMaster(t *testing.T) {
	s, tag := joinedSession(t)
	s.Step(at(hb), Tick{Tag: tag}) // heard the Welcome
	tag++
	for i := 2; i <= wire.Misses; i++ {
		acts := s.Step(at(time.Duration(i)*hb), Tick{Tag: tag})
		assert.Equal(t, []Action{Beat{}, Arm{Tag: tag + 1, Delay: hb}}, acts, "heartbeat %d", i)
		tag++
	}
	acts := s.Step(at(4*hb), Tick{Tag: tag})
	require.NotEmpty(t, acts)
	assert.Equal(t, Lost{Why: "heard nothing from it for 3s", Window: window}, acts[0])
	assert.Equal(t, Probe{Attempt: 1, Within: rejoinFirst}, probeOf(t, acts))
	arm := armOf(t, acts)
	assert.GreaterOrEqual(t, arm.Delay, rejoinFirst/2)
	assert.LessOrEqual(t, arm.Delay, rejoinFirst)
	assert.False(t, s.Reports(), "a worker that lost its master reports nothing")
	assert.False(t, s.Takes(99, 7), "and takes no task")
}

// Partition: the worker's Beats go nowhere and nothing comes back; once
// the network heals, a probe that connects registers, and the master
// (which gave the worker up meanwhile) welcomes it under a new ID.
func TestAWorkerCutOffByAPartitionRejoinsOnceItHeals(t *testing.T) {
	s, tag := joinedSession(t)
	var acts []Action
	for i := 1; i <= wire.Misses+1; i++ {
		acts = s.Step(at(time.Duration(i)*hb), Tick{Tag: tag})
		tag = armOf(t, acts).Tag
	}
	require.IsType(t, Lost{}, acts[0])
	lostAt := at(time.Duration(wire.Misses+1) * hb)

	// The first probes fail: the network is still cut.
	now := lostAt
	p := probeOf(t, acts)
	for range 3 {
		assert.Empty(t, s.Step(now, Probed{Attempt: p.Attempt, Err: errors.New("i/o timeout")}))
		arm := armOf(t, acts)
		now = now.Add(arm.Delay)
		acts = s.Step(now, Tick{Tag: arm.Tag})
		p = probeOf(t, acts)
	}
	// A probe of an earlier attempt that connects late counts for nothing.
	assert.Empty(t, s.Step(now, Probed{Attempt: p.Attempt - 1}))
	// The latest connects: register, and the master welcomes it anew.
	acts = s.Step(now, Probed{Attempt: p.Attempt})
	require.Equal(t, []Action{Register{Nonce: 2}}, acts)
	acts = s.Step(now.Add(time.Millisecond), welcome(s, 8, 99))
	require.NotEmpty(t, acts)
	assert.Equal(t, Joined{ID: 8, Rejoined: true, After: now.Add(time.Millisecond).Sub(lostAt)}, acts[0])
	assert.Contains(t, acts, Ready{})
	assert.True(t, s.Takes(99, 8))
	assert.False(t, s.Takes(99, 7), "the tasks of its old ID are the master's again")
}

// Rejoin with backoff: attempts double their wait from rejoinFirst to
// rejoinMost, each with jitter within half of it.
func TestRejoiningBacksOffWithJitter(t *testing.T) {
	s, _ := joinedSession(t)
	acts := s.Step(at(hb), Gone{Why: "AddressTerminated"})
	require.Equal(t, Lost{Why: "it stopped answering (AddressTerminated)", Window: window}, acts[0])
	now := at(hb)
	backoff := rejoinFirst
	for i := range 10 {
		arm := armOf(t, acts)
		assert.GreaterOrEqual(t, arm.Delay, backoff/2, "attempt %d", i+1)
		assert.LessOrEqual(t, arm.Delay, backoff, "attempt %d", i+1)
		assert.Equal(t, Probe{Attempt: uint64(i + 1), Within: backoff}, probeOf(t, acts))
		backoff = min(2*backoff, rejoinMost)
		now = now.Add(arm.Delay)
		acts = s.Step(now, Tick{Tag: arm.Tag})
	}
	// The jitter comes from the session's own generator: the same seed
	// draws the same waits.
	again, _ := joinedSession(t)
	first := again.Step(at(hb), Gone{Why: "AddressTerminated"})
	replay, _ := joinedSession(t)
	assert.Equal(t, first, replay.Step(at(hb), Gone{Why: "AddressTerminated"}))
}

// Restart of the master: the master's node went away, and another run of
// the stage at the same address welcomes the worker, with another
// incarnation that its messages name from then on.
func TestAWorkerRejoinsAMasterRestartedAtTheSameAddress(t *testing.T) {
	s, _ := joinedSession(t)
	acts := s.Step(at(hb), Gone{Why: "AddressTerminated"})
	require.IsType(t, Lost{}, acts[0])
	// The restarted master's Pulse to a Beat of before says it does not
	// know the worker: a worker already rejoining takes no notice.
	assert.Empty(t, s.Step(at(hb), Pulsed{Worker: 7, Incarnation: 123}))
	acts = s.Step(at(hb+10*time.Millisecond), Probed{Attempt: 1})
	require.Equal(t, []Action{Register{Nonce: 2}}, acts)
	acts = s.Step(at(2*hb), welcome(s, 1, 123))
	assert.Equal(t, Joined{ID: 1, Rejoined: true, Another: true, After: hb}, acts[0])
	assert.True(t, s.Takes(123, 1))
	assert.False(t, s.Takes(99, 1), "nothing of the run before")
}

// A master that no longer knows a joined worker (it gave it up for its
// silence) says so in its Pulse: the worker rejoins at once.
func TestAPulseThatDoesNotKnowTheWorkerMakesItRejoin(t *testing.T) {
	s, _ := joinedSession(t)
	assert.Empty(t, s.Step(at(hb), Pulsed{Worker: 6, Incarnation: 99}), "a Pulse for an earlier ID of its is stale")
	acts := s.Step(at(hb), Pulsed{Worker: 7, Incarnation: 99})
	assert.Equal(t, Lost{Why: "it no longer knows the worker", Window: window}, acts[0])
}

// The end of the rejoin window: the worker that never got back ends with
// ErrMasterGone, saying why it lost its master.
func TestAWorkerEndsWhenItsMasterDoesNotComeBackInTheWindow(t *testing.T) {
	s, _ := joinedSession(t)
	acts := s.Step(at(hb), Gone{Why: "AddressTerminated"})
	now := at(hb)
	for now.Before(at(hb + window)) {
		arm := armOf(t, acts)
		assert.LessOrEqual(t, now.Add(arm.Delay), at(hb+window), "no attempt is armed past the window")
		now = now.Add(arm.Delay)
		acts = s.Step(now, Tick{Tag: arm.Tag})
	}
	require.Len(t, acts, 1)
	end := acts[0].(End)
	require.ErrorIs(t, end.Err, ErrMasterGone)
	assert.EqualError(t, end.Err, "remote: the master is gone: 10.0.0.5:7070: it stopped answering (AddressTerminated), and it did not come back within 1m0s")
	assert.True(t, end.Unwatch, "it never joined the master it lost")
	assert.Empty(t, s.Step(now.Add(hb), Tick{Tag: s.armed}), "nothing after the end")
}

func TestARejoinRefusedBecauseTheStageFinishedEndsWithoutError(t *testing.T) {
	s, _ := joinedSession(t)
	s.Step(at(hb), Gone{Why: "AddressTerminated"})
	s.Step(at(hb), Probed{Attempt: 1})
	m := welcome(s, 0, 99)
	m.Refused = wire.StageFinished
	assert.Equal(t, []Action{End{Unwatch: true}}, s.Step(at(2*hb), m))
}

func TestAStoppedMasterEndsTheWorkerAndOneGoneBeforeItsWelcomeIsRegisteredWithAgain(t *testing.T) {
	s, _ := joinedSession(t)
	assert.Equal(t, []Action{End{}}, s.Step(at(hb), Gone{Stopped: true, Why: "Stopped"}), "the stage ended")

	// No stage of that name runs there, or not yet: it looks again, with
	// backoff, until its connect window has passed.
	s = newTestSession()
	s.Step(t0, Start{})
	now := t0
	acts := s.Step(now, Gone{Stopped: true, Why: "Stopped"})
	for tries := 0; ; tries++ {
		require.Len(t, acts, 1)
		arm := acts[0].(Arm)
		now = now.Add(arm.Delay)
		acts = s.Step(now, Tick{Tag: arm.Tag})
		if _, ended := acts[0].(Ready); ended {
			assert.Equal(t, at(connect), now, "it gave up as its window ended")
			assert.Greater(t, tries, 3, "after several registrations")
			break
		}
		require.IsType(t, Register{}, acts[len(acts)-1], "it registers again")
		acts = s.Step(now, Gone{Stopped: true, Why: "Stopped"})
	}
	err := acts[0].(Ready).Err
	assert.ErrorIs(t, err, ErrUnreachable)
	assert.EqualError(t, err, `remote: the master cannot be reached: no stage named "double" runs at 10.0.0.5:7070 (or it ended before the worker joined), for 5s`)

	// A master that never answers: the registration times out.
	s = newTestSession()
	arm := s.Step(t0, Start{})[0].(Arm)
	acts = s.Step(at(arm.Delay), Tick{Tag: arm.Tag})
	require.Len(t, acts, 1)
	assert.EqualError(t, acts[0].(Ready).Err, "remote: the master cannot be reached at 10.0.0.5:7070: no answer to the registration within 5s")

	// A stage that starts a moment after its node listens is joined.
	s = newTestSession()
	s.Step(t0, Start{})
	arm = s.Step(t0, Gone{Stopped: true, Why: "Stopped"})[0].(Arm)
	acts = s.Step(at(arm.Delay), Tick{Tag: arm.Tag})
	require.Equal(t, Register{Nonce: 2, Ask: 8}, acts[len(acts)-1], "still its first join: it asks")
	acts = s.Step(at(arm.Delay), welcome(s, 1, 1))
	assert.Contains(t, acts, Ready{})

	s = newTestSession()
	s.Step(t0, Start{})
	acts = s.Step(t0, Gone{Why: "AddressTerminated"})
	assert.Equal(t, Lost{Why: "it stopped answering before the worker joined (AddressTerminated)", Window: window}, acts[0])
}

func TestAWorkerLeavesOnceAndEndsWhenTheMasterAnswers(t *testing.T) {
	s, tag := joinedSession(t)
	assert.Equal(t, []Action{Leave{}}, s.Step(at(hb), Quit{}))
	assert.False(t, s.Reports(), "outcomes that end later are not sent")
	assert.False(t, s.Takes(99, 7), "nor tasks taken")
	assert.Empty(t, s.Step(at(2*hb), Tick{Tag: tag}), "no heartbeat while leaving")
	assert.Equal(t, []Action{Over{}}, s.Step(at(2*hb), Finished{}), "the master's Finished acknowledges the Leave")
	assert.Empty(t, s.Step(at(2*hb), Finished{}), "once")
	assert.Equal(t, []Action{End{}}, s.Step(at(3*hb), Gone{Why: "AddressTerminated"}), "a master gone after the stage finished is no error")
}

func TestAWorkerThatQuitsBeforeItJoinedEndsAtOnce(t *testing.T) {
	s := newTestSession()
	s.Step(t0, Start{})
	assert.Equal(t, []Action{End{Unwatch: true}}, s.Step(t0, Quit{}))
}

func TestAMasterGoneWhileTheWorkerLeavesIsAnError(t *testing.T) {
	s, _ := joinedSession(t)
	s.Step(at(hb), Quit{})
	acts := s.Step(at(hb), Gone{Why: "AddressTerminated"})
	require.Len(t, acts, 1)
	assert.ErrorIs(t, acts[0].(End).Err, ErrMasterGone)
}

func TestAWelcomeWithAHeartbeatOutOfRangeTakesTheFallback(t *testing.T) {
	for _, d := range []time.Duration{0, time.Microsecond, 2 * time.Hour} {
		s := newTestSession()
		s.Step(t0, Start{})
		m := welcome(s, 1, 1)
		m.Heartbeat = d
		acts := s.Step(t0, m)
		assert.Contains(t, acts, Quiet{Silence: wire.Misses * fallbackHeartbeat}, "%v", d)
		assert.Equal(t, fallbackHeartbeat, armOf(t, acts).Delay, "%v", d)
	}
}

func TestAWorkerIsWedgedOnlyWhenEverySlotRanOneTaskLongerThanTheLease(t *testing.T) {
	lease := 10 * time.Second
	busy := func(item uint64, since time.Duration) running { return running{item: item + 1, since: at(since)} }
	for _, tc := range []struct {
		name  string
		seen  []running
		lease time.Duration
		now   time.Duration
		want  []uint64
	}{
		{"every slot past the lease", []running{busy(7, 0), busy(3, 2*time.Second)}, lease, 13 * time.Second, []uint64{3, 7}},
		{"one slot within it", []running{busy(7, 0), busy(3, 5*time.Second)}, lease, 13 * time.Second, nil},
		{"one slot idle", []running{busy(7, 0), {}}, lease, time.Hour, nil},
		{"no lease told yet", []running{busy(7, 0)}, 0, time.Hour, nil},
		{"exactly the lease", []running{busy(7, 0)}, lease, lease, nil},
	} {
		items, wedged := hung(at(tc.now), tc.seen, tc.lease)
		assert.Equal(t, tc.want != nil, wedged, tc.name)
		assert.Equal(t, tc.want, items, tc.name)
	}
}

func TestAWelcomeTellsTheWorkerTheLease(t *testing.T) {
	s := newTestSession()
	s.Step(t0, Start{})
	assert.Zero(t, s.Lease())
	m := welcome(s, 1, 1)
	m.Lease = time.Minute
	s.Step(t0, m)
	assert.Equal(t, time.Minute, s.Lease())
}
