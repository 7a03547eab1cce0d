package cell

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// fakeRelayed records what runRelayed does with it; its visit notes the
// agents in next.
type fakeRelayed struct {
	name string
	log  *[]string
	next []relayed
}

func (f *fakeRelayed) visit(woke []relayed) []relayed {
	*f.log = append(*f.log, "visit "+f.name)
	return append(woke, f.next...)
}

func (f *fakeRelayed) wake() { *f.log = append(*f.log, "wake "+f.name) }

func TestRunRelayedVisitsInTurnThenWakesPastMaxHops(t *testing.T) {
	var log []string
	agents := make([]*fakeRelayed, 10)
	for i := range agents {
		agents[i] = &fakeRelayed{name: string(rune('a' + i)), log: &log}
	}
	agents[0].next = []relayed{agents[8]} // a woke i, which comes after the others noted
	woke := []relayed{agents[0], agents[1], agents[2], agents[3], agents[4], agents[5], agents[6], agents[7], agents[9]}
	left := runRelayed(woke)
	assert.Equal(t, []string{
		"visit a", "visit b", "visit c", "visit d", "visit e", "visit f", "visit g", "visit h",
		"wake j", "wake i",
	}, log, "maxHops visits on this goroutine, in the order noted; the rest through their mailboxes")
	assert.Empty(t, left)
	assert.GreaterOrEqual(t, cap(left), 10, "the slice is kept for reuse")
}

func TestARelayNotesOnlyWhileOnAndForAStartedAgent(t *testing.T) {
	var log []string
	a := &fakeRelayed{name: "a", log: &log}
	var r Relay
	assert.False(t, r.note(a, true), "off: the caller wakes the agent itself")
	r.on = true
	assert.False(t, r.note(a, false), "an agent whose actor has not started is woken through its mailbox")
	assert.True(t, r.note(a, true))
	var none *Relay
	assert.False(t, none.note(a, true), "no relay: a caller outside any agent")
	woke := r.handOver(nil)
	assert.Equal(t, []relayed{a}, woke)
	assert.False(t, r.on)
	assert.Empty(t, r.woke)
}
