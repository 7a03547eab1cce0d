package livepage

import "testing"

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Sample
		want Phase
	}{
		{"nothing at all", Sample{Demand: 5}, Idle},
		{"nothing, and no demand: idle, not held", Sample{}, Idle},
		{"work in flight", Sample{InFlight: 2, Demand: 3}, Busy},
		{"work in flight, no demand, no result yet", Sample{InFlight: 2}, Busy},
		{"a result held for lack of demand", Sample{InFlight: 2, Results: 1}, Held},
		{"a result held, demand there (waits for an earlier item)", Sample{InFlight: 2, Results: 1, Demand: 1}, Busy},
		{"a rate stage's queue, demand there: spending tokens", Sample{Queued: 4, Demand: 2}, Busy},
		{"a rate stage's queue, no demand", Sample{Queued: 4}, Held},
		{"the last stage, unbounded demand spent to zero stays unbounded", Sample{Queued: 1, Unbounded: true}, Busy},
		{"a buffer's open batch waits for input", Sample{Queued: 3, Open: 3, Demand: 1}, Idle},
		{"a buffer's open batch and no demand", Sample{Queued: 3, Open: 3}, Idle},
		{"a buffer's cut batch and no demand", Sample{Queued: 5, Open: 3}, Held},
		{"a buffer flushing", Sample{Queued: 3, Open: 3, InFlight: 1, Demand: 1}, Busy},
	} {
		if got := Classify(tc.s); got != tc.want {
			t.Errorf("%s: Classify(%+v) = %v, want %v", tc.name, tc.s, got, tc.want)
		}
	}
}

func TestPhaseString(t *testing.T) {
	for p, want := range map[Phase]string{Idle: "idle", Busy: "busy", Held: "held"} {
		if p.String() != want {
			t.Errorf("%d prints %q, want %q", p, p.String(), want)
		}
	}
}

func TestWeigh(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Sample
		want Shares
	}{
		{"idle", Sample{Demand: 1, Limit: 4}, Shares{Idle: 1}},
		{"held back", Sample{InFlight: 4, Results: 1, Limit: 4}, Shares{Held: 1}},
		{"no limit: all busy", Sample{Queued: 3, Demand: 1}, Shares{Busy: 1}},
		{"at its limit", Sample{InFlight: 4, Demand: 1, Limit: 4}, Shares{Busy: 1}},
		{"over its limit, lowered since", Sample{InFlight: 6, Demand: 1, Limit: 4}, Shares{Busy: 1}},
		{"one slot of four at work", Sample{InFlight: 1, Demand: 1, Limit: 4}, Shares{Busy: 0.25, Idle: 0.75}},
		{"items queued, none in flight yet", Sample{Queued: 2, Demand: 1, Limit: 4}, Shares{Idle: 1}},
	} {
		if got := Weigh(tc.s); got != tc.want {
			t.Errorf("%s: Weigh(%+v) = %+v, want %+v", tc.name, tc.s, got, tc.want)
		}
	}
}
