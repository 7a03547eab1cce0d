package book

import (
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hb is the heartbeat of these tests' masters: a worker is given up after
// three of them of silence.
const hb = time.Second

// playBeats runs steps from a master with heartbeat hb, whose silence rule
// is on.
func playBeats(t *testing.T, steps ...agenttest.Step) []agenttest.Trace[mstate] {
	t.Helper()
	s, err := newBook[string, int](options[string]{Heartbeat: hb, Lease: lease})
	require.NoError(t, err)
	return agenttest.Run(evolve[string, int], s, steps...)
}

func silenceIn(d time.Duration) agent.Timer { return agent.Timer{Tag: silenceTimer, Delay: d} }

func expelled(id WorkerID) agent.Send[Expel] { return agent.Send[Expel]{Value: Expel{Worker: id}} }

func beatOf(id WorkerID) agenttest.Step { return event(Beat{Worker: id}) }

func TestASilentWorkerIsGivenUpAndItsItemsQueuedAgain(t *testing.T) {
	tr := playBeats(t,
		pullAll,
		join(1, 2),
		after(500*time.Millisecond, join(2, 2)),
		after(time.Second, ask(1, 2)),
		after(time.Second, items("a", "b")),
		after(2500*time.Millisecond, beatOf(2)),
		after(3*time.Second, tick(silenceTimer)),
		after(4*time.Second, tick(silenceTimer)),
		after(5*time.Second, tick(silenceTimer)),
		after(5500*time.Millisecond, tick(silenceTimer)),
	)
	assert.Equal(t, []agent.Effect{silenceIn(3 * hb)}, tr[1].Effects, "the first worker arms the timer")
	assert.Empty(t, tr[2].Effects, "a pending timer is not moved as workers join")
	assert.Equal(t, []agent.Effect{send(1, taskOf(0, 1, "a"), taskOf(1, 1, "b")), agent.Demand{N: 2}, leaseIn(lease)}, tr[4].Effects)
	assert.Empty(t, tr[5].Effects, "a beat only notes that the worker lives")
	assert.Equal(t, []agent.Effect{silenceIn(time.Second)}, tr[6].Effects,
		"at 3s nobody is silent for 3s: worker 1 was heard at 1s, so the timer moves to 4s")
	assert.Equal(t, []agent.Effect{expelled(1), agent.Disarm{Tag: leaseTag}, silenceIn(1500 * time.Millisecond)}, tr[7].Effects,
		"at 4s worker 1 is given up, its leases with it; worker 2, heard at 2.5s, is due at 5.5s")
	st := tr[7].State.Snapshot()
	assert.Equal(t, []uint64{2}, workerIDs(st))
	assert.Equal(t, 2, st.Requeued, "its items are queued again")
	assert.Equal(t, 2, st.Queued)
	assert.Empty(t, tr[8].Effects, "a Tick before the timer pending changes nothing")
	assert.Equal(t, []agent.Effect{expelled(2), agent.Timer{Tag: waitTag, Delay: DefaultTagWait}}, tr[9].Effects,
		"worker 2 is given up at 5.5s, and the items wait for a worker; with none, the silence timer is not armed again")
}

func TestEveryMessageOfAWorkerIsASignOfLife(t *testing.T) {
	tr := playBeats(t,
		pullAll,
		join(1, 1),
		after(2*time.Second, ask(1, 1)),
		after(2500*time.Millisecond, items("a")),
		after(2900*time.Millisecond, ok(1, 0, 1, 7)),
		after(3*time.Second, tick(silenceTimer)),
		after(5900*time.Millisecond, tick(silenceTimer)),
	)
	assert.Equal(t, []agent.Effect{silenceIn(3 * hb)}, tr[1].Effects)
	assert.Equal(t, []agent.Effect{silenceIn(2900 * time.Millisecond)}, tr[5].Effects,
		"the worker's last message was at 2.9s: the timer moves to 5.9s, and nobody is given up")
	assert.Len(t, tr[5].State.Snapshot().Workers, 1)
	assert.Equal(t, []agent.Effect{expelled(1)}, tr[6].Effects)
	assert.Equal(t, 1, tr[6].State.Snapshot().Done, "its result counted before")
}

func TestALateSilenceTickGivesEveryWorkerAFullSilence(t *testing.T) {
	tr := playBeats(t,
		pullAll,
		join(1, 1),
		// The master did not run from 2s to 10s: its Tick comes 7s late.
		after(10*time.Second, tick(silenceTimer)),
		after(13*time.Second, tick(silenceTimer)),
	)
	assert.Equal(t, []agent.Effect{silenceIn(3 * hb)}, tr[2].Effects,
		"no worker is given up for the master's own stall: each has three heartbeats from now")
	assert.Len(t, tr[2].State.Snapshot().Workers, 1)
	assert.Equal(t, []agent.Effect{expelled(1)}, tr[3].Effects, "silent for 3s after the stall")
}

func TestABeatFromAWorkerNotRegisteredChangesNothing(t *testing.T) {
	tr := playBeats(t, pullAll, join(1, 1), beatOf(7), lose(1), beatOf(1))
	assert.Empty(t, tr[2].Effects)
	assert.Equal(t, []agent.Effect{agent.Disarm{Tag: silenceTimer}}, tr[3].Effects, "no worker, no timer")
	assert.Empty(t, tr[4].Effects)
	assert.Equal(t, bookkeeping(tr[3].State), bookkeeping(tr[4].State))
}
