package budget_test

import (
	"testing"
	"time"

	"github.com/evolvekit/evolve/internal/budget"
	"github.com/stretchr/testify/assert"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// at is the instant d after t0.
func at(d time.Duration) time.Time { return t0.Add(d) }

func TestEstimateGoesByLittlesLaw(t *testing.T) {
	for _, c := range []struct {
		name     string
		readings []budget.Reading
		want     time.Duration // 0: none yet
		queued   int
	}{
		{"one reading estimates nothing", []budget.Reading{{At: t0, Queued: 5, Busy: 4, Done: 10}}, 0, 5},
		{"four workers busy for 100 ms, 40 items done: 10 ms each", []budget.Reading{
			{At: t0, Busy: 4}, {At: at(100 * ms), Queued: 7, Busy: 4, Done: 40}}, 10 * ms, 7},
		{"busy is the mean of the two readings", []budget.Reading{
			{At: t0, Busy: 2}, {At: at(100 * ms), Busy: 6, Done: 20}}, 20 * ms, 0},
		{"the estimates are smoothed", []budget.Reading{
			{At: t0, Busy: 4}, {At: at(100 * ms), Busy: 4, Done: 40}, {At: at(200 * ms), Busy: 4, Done: 60}}, 15 * ms, 0},
		{"nothing done while busy: at least the time busy", []budget.Reading{
			{At: t0, Busy: 1}, {At: at(50 * ms), Busy: 1}}, 50 * ms, 0},
		{"which raises the mean", []budget.Reading{
			{At: t0, Busy: 1}, {At: at(50 * ms), Busy: 1, Done: 10}, {At: at(100 * ms), Busy: 1, Done: 10}}, 55 * ms / 2, 0},
		{"but never lowers it", []budget.Reading{
			{At: t0, Busy: 2}, {At: at(50 * ms), Busy: 2, Done: 1}, {At: at(60 * ms), Busy: 2, Done: 1}}, 100 * ms, 0},
		{"idle and nothing done says nothing", []budget.Reading{
			{At: t0}, {At: at(50 * ms)}}, 0, 0},
		{"a reading no later than the last only replaces it", []budget.Reading{
			{At: t0, Busy: 4}, {At: t0, Busy: 4, Done: 40}, {At: at(100 * ms), Busy: 4, Done: 80}}, 10 * ms, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var e budget.Estimate
			for _, r := range c.readings {
				e = e.Observe(r)
			}
			got, ok := e.Service()
			assert.Equal(t, c.want, got)
			assert.Equal(t, c.want > 0, ok)
			assert.Equal(t, budget.Demand{Queued: c.queued, Service: c.want}, e.Demand())
		})
	}
}

func TestAQuickStageAsksForOneNanosecond(t *testing.T) {
	e := budget.Estimate{}.Observe(budget.Reading{At: t0}).Observe(budget.Reading{At: at(ms), Queued: 3, Done: 1000})
	assert.Equal(t, budget.Demand{Queued: 3, Service: 1}, e.Demand())
}
