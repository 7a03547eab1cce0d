package grant_test

import (
	"testing"
	"time"

	"github.com/evolvekit/evolve/durable/internal/grant"
	"github.com/stretchr/testify/assert"
)

// A process that finds the limit all held by another writes its demand
// with no share, and then waits for its renewal: its bucket's reports of
// the same demand, which follow every grant, even one of nothing, ask for
// nothing more until then, so the two do not spin on each other. A larger
// demand asks again at once.
func TestAProcessWithNoShareAsksOnceThenWaits(t *testing.T) {
	k := grant.NewKeeper(grant.Config{ID: 2, Rate: 100, Burst: 10, Period: time.Second, Margin: 50 * time.Millisecond})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	full := grant.Table{Rate: 100, Burst: 10, Entries: []grant.Entry{{ID: 1, Rate: 100, Burst: 10, Demand: 100, Ver: 1}}}
	assert.Equal(t, []grant.Action{grant.Get{}}, k.Step(t0, grant.Use{Demand: 100}))
	acts := k.Step(t0, grant.Read{Table: full, Rev: 1, Found: true})
	if assert.Len(t, acts, 1) {
		p := acts[0].(grant.Put)
		assert.Equal(t, grant.Entry{ID: 2, Demand: 100, Ver: 1}, p.Table.Entries[1], "its entry: its demand, no share")
	}
	assert.Equal(t, []grant.Action{grant.Apply{}, grant.Arm{Delay: 500 * time.Millisecond}}, k.Step(t0, grant.Wrote{}))
	assert.Empty(t, k.Step(t0, grant.Use{Demand: 100}), "the same demand, told already")
	assert.Empty(t, k.Step(t0, grant.Use{Demand: 50}))
	assert.Equal(t, []grant.Action{grant.Get{}}, k.Step(t0, grant.Use{Demand: 150}), "more than it told")
}
