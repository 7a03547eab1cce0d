package livepage

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/bridge"
)

// part is one stage of a status as the page reads it: its name, its
// agent.Load, the name of the package whose status it has, and what its
// status says beyond its Load.
type part struct {
	name   string
	load   agent.Load
	kind   string
	detail detail
}

// detail is what the page reads of an agent package's status, by field
// name (see the package doc, under What the page reads): each field is
// left zero by a status that has none of that name.
type detail struct {
	Held     int
	Pending  int
	Limit    int
	Tokens   *float64
	Rate     *float64
	Burst    int
	Shared   bool
	Workers  []detailWorker
	Tags     map[string]int
	Want     map[string]int
	Leased   map[string]int
	Retrying json.RawMessage // a map by tag (remote) or a count (parallel)
	Keys     map[string]int
	Started  map[string]int
	Weights  map[string]int
}

// detailWorker is what the page reads of a remote stage's worker.
type detailWorker struct {
	ID                          uint64
	Addr                        string
	Tags                        []string
	Slots, Free, InFlight, Done int
	Failed, Moved, Hung         int
}

// partsOf returns the stages of status, the value a handle named name
// answered Status with: the Agents of a chain's status (each with its
// Name, its agent.Load and its Detail), or the status of one agent as a
// chain of one stage.
func partsOf(name string, status any) []part {
	v := reflect.Indirect(reflect.ValueOf(status))
	if v.Kind() == reflect.Struct {
		if agents := v.FieldByName("Agents"); agents.IsValid() && agents.Kind() == reflect.Slice {
			parts := make([]part, 0, agents.Len())
			for i := range agents.Len() {
				parts = append(parts, partOf(agents.Index(i)))
			}
			return parts
		}
	}
	return []part{stagePart(name, status)}
}

// partOf reads one of a chain's Agents: its Name, Load and Detail.
func partOf(a reflect.Value) part {
	a = reflect.Indirect(a)
	if a.Kind() != reflect.Struct {
		return part{}
	}
	var name string
	if f := a.FieldByName("Name"); f.IsValid() && f.Kind() == reflect.String {
		name = f.String()
	}
	var d any
	if f := a.FieldByName("Detail"); f.IsValid() && f.CanInterface() {
		d = f.Interface()
	}
	p := stagePart(name, d)
	if f := a.FieldByName("Load"); f.IsValid() && f.CanInterface() {
		p.load, _ = f.Interface().(agent.Load)
	}
	return p
}

// stagePart reads the status of one agent, named name.
func stagePart(name string, status any) part {
	p := part{name: name, kind: kindOf(status)}
	if l, ok := bridge.LoadOf(status); ok {
		p.load, _ = l.(agent.Load)
	}
	if status == nil {
		return p
	}
	if b, err := json.Marshal(status); err == nil {
		_ = json.Unmarshal(b, &p.detail) // a field of another type stays zero
	}
	return p
}

// kindOf returns the last element of the path of the package that defines
// status's type ("parallel", "rate"), or "" for none.
func kindOf(status any) string {
	if status == nil {
		return ""
	}
	t := reflect.TypeOf(status)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	path := t.PkgPath()
	return path[strings.LastIndex(path, "/")+1:]
}

// sample returns what p's status says of its phase.
func (p part) sample() Sample {
	return Sample{Queued: p.load.Queued, InFlight: p.load.InFlight, Demand: int(p.load.Demand),
		Unbounded: p.load.Demand.IsUnbounded(), Results: p.detail.Held, Open: p.detail.Pending, Limit: p.limit()}
}

// limit returns the most work p may have in flight: its Limit, or its
// workers' slots; 0 for none.
func (p part) limit() int {
	if p.detail.Workers == nil {
		return p.detail.Limit
	}
	slots := 0
	for _, w := range p.detail.Workers {
		slots += w.Slots
	}
	return slots
}

// counts reads raw as a map of counts by name; a plain count reads as
// none.
func counts(raw json.RawMessage) map[string]int {
	var m map[string]int
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// sortedKeys returns the keys of the maps, each once, in order.
func sortedKeys(maps ...map[string]int) []string {
	var keys []string
	for _, m := range maps {
		for k := range m {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
