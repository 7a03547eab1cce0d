// Package grant is the rule by which the processes that share one rate
// limit split it: a table of shares kept in a key-value entry that every
// process updates by compare-and-set, and what each process may do with
// its own share, as a pure step ([Keeper]) that the process's actor
// performs. Nothing here reads a clock or the network: instants come with
// the events, and the table comes from the reads the Keeper asks for.
//
// The promise: over any window of length t, the tokens the processes'
// buckets let through number at most Burst + Rate·t. It rests on three
// rules.
//
//   - The table never holds more than the limit: its shares of the rate sum
//     to at most Rate, and of the burst to at most Burst. Every write is a
//     compare-and-set on the revision read, so no two processes write on
//     the same view.
//   - A process spends a share only within its lease: from the moment it
//     sent the write that gave it the share (so a slow answer shortens the
//     lease), for Period less Margin, by its own monotonic clock. It takes
//     a smaller share as soon as it decides on it, before the write; a
//     larger one only once the write is confirmed. After its lease, its
//     bucket holds nothing.
//   - A process removes another's entry, and so frees its share, only once
//     it has seen that entry unchanged for Period plus Margin by its own
//     clock, counted from when it first read it: since the entry's owner
//     began its lease before it sent the entry, that lease has ended by
//     then, whatever the clocks of the machines say of the time of day.
//
// So no share is ever spent by two processes at once, and the sum of the
// rates being spent is at most Rate at every instant. Clocks matter only as
// measures of time elapsed on one machine, at rates that differ by less
// than the Margin allows for.
package grant

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Table is the shares of one limit: what every process that shares it
// holds. It is the value of one key, encoded as JSON.
type Table struct {
	Rate    float64 `json:"rate"`  // the limit's, tokens a second
	Burst   int     `json:"burst"` // the limit's
	Entries []Entry `json:"entries"`
}

// Entry is one process's share of the limit, and what it asked for.
type Entry struct {
	ID     uint64  `json:"id"`     // the process's, drawn at random as it opens the limit
	Rate   float64 `json:"rate"`   // its share of the rate
	Burst  int     `json:"burst"`  // its share of the burst
	Demand float64 `json:"demand"` // the tokens a second it would spend
	Ver    uint64  `json:"ver"`    // bumped by each of its writes
}

// Decode decodes a table from its JSON, or reports what is wrong with it:
// a table whose shares pass its limit is refused, so that no process takes
// a view of the limit that breaks the first rule.
func Decode(data []byte) (Table, error) {
	var t Table
	if err := json.Unmarshal(data, &t); err != nil {
		return Table{}, fmt.Errorf("grant: the table does not decode: %w", err)
	}
	rate, burst := t.used(0)
	if rate > t.Rate*(1+1e-9) || burst > t.Burst {
		return Table{}, fmt.Errorf("grant: the table's shares, %v a second and a burst of %d, pass its limit of %v and %d", rate, burst, t.Rate, t.Burst)
	}
	return t, nil
}

// Encode returns t's JSON.
func (t Table) Encode() []byte {
	data, _ := json.Marshal(t) // a Table always encodes
	return data
}

// used returns the sums of the shares of the entries but that of id.
func (t Table) used(id uint64) (float64, int) {
	var rate float64
	var burst int
	for _, e := range t.Entries {
		if e.ID != id {
			rate += e.Rate
			burst += e.Burst
		}
	}
	return rate, burst
}

// with returns t with e in the place of its owner's entry, or added.
func (t Table) with(e Entry) Table {
	out := t
	out.Entries = slices.DeleteFunc(slices.Clone(t.Entries), func(x Entry) bool { return x.ID == e.ID })
	out.Entries = append(out.Entries, e)
	slices.SortFunc(out.Entries, func(a, b Entry) int { return cmpID(a.ID, b.ID) })
	return out
}

// without returns t without the entries of ids.
func (t Table) without(ids []uint64) Table {
	out := t
	out.Entries = slices.DeleteFunc(slices.Clone(t.Entries), func(x Entry) bool { return slices.Contains(ids, x.ID) })
	return out
}

func cmpID(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// fair returns the share of the rate that the process id would hold were
// the limit split by the demands of t's entries, its own being demand:
// each gets what it asks for, up to an equal split of what those that ask
// for more leave (max-min fairness).
func fair(t Table, id uint64, demand float64) float64 {
	demands := make([]float64, 0, len(t.Entries)+1)
	mine := -1
	for _, e := range t.Entries {
		if e.ID == id {
			continue
		}
		demands = append(demands, max(e.Demand, 0))
	}
	mine = len(demands)
	demands = append(demands, max(demand, 0))
	shares := waterfill(t.Rate, demands)
	return shares[mine]
}

// waterfill splits total among demands: each gets its demand if it is at
// most an equal split of what is left, and the rest split what remains.
func waterfill(total float64, demands []float64) []float64 {
	shares := make([]float64, len(demands))
	order := make([]int, len(demands))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case demands[a] < demands[b]:
			return -1
		case demands[a] > demands[b]:
			return 1
		}
		return 0
	})
	left := total
	for k, i := range order {
		equal := left / float64(len(order)-k)
		shares[i] = min(demands[i], equal)
		left -= shares[i]
	}
	return shares
}
