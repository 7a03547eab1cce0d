package remote

import (
	"slices"
	"strings"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/meter"
	"github.com/evolvekit/evolve/remote/internal/census"
)

// Status is a snapshot of a remote stage's master, as its handle's Status
// returns it and LogStatus logs it. Its agent.Load counts items: Queued
// those accepted and not handed to a worker, InFlight those leased to a
// worker, Done those whose result is known, failed or not, and Failed those
// that failed for good.
type Status struct {
	agent.Load
	// Workers are the registered workers, by ID.
	Workers []WorkerStatus
	// Tags counts the queued items by the tag they need; "" is the items
	// any worker may take. Waiting counts those that no registered worker
	// may take: none has their tag, or every one that has it has all its
	// slots hung.
	Tags    map[string]int
	Waiting int
	// Held counts the results waiting to be emitted: for an earlier item,
	// in input order, or for downstream demand.
	Held int
	// Requeued counts the attempts taken back from a worker that died,
	// left, or let its lease expire; Retried the items tried again after
	// their work failed; Duplicates the results dropped because the item's
	// result was already known, or came from an attempt taken back.
	Requeued   int
	Retried    int
	Duplicates int
	// Moves counts the moves taken (see the package doc, under Moves),
	// those a worker holding the tag made itself among them.
	Moves int
	// Refused counts what peers sent that the stage refused: malformed
	// messages, messages not from the worker they name, Registers past
	// Config.MaxSlots, system messages such as a PoisonPill, and results
	// from a worker the item was not handed to. Refusals by the node (the
	// first kinds) count in every stage on it. Refusals are counted here,
	// and logged at warn level, at most once a second.
	Refused int
	// Accepted counts the items taken in, Emitted the results passed on.
	Accepted int
	Emitted  int
	// Closed is true once the input has ended.
	Closed bool
	// Paced is true in a chain behind a rate stage, which then holds the
	// items waiting: the stage takes them only as its workers can start
	// them (see the package doc, under Behind a rate stage), and Room
	// counts those it can start as they come and has not got yet.
	Paced bool
	Room  int
	// Want is, by tag as in Tags, how many workers the stage wants for
	// the items of that tag (see the package doc, under Scaling on the
	// backlog): it holds every tag the stage has seen, of an item or a
	// worker, 0 for one empty and idle. The figures behind it, by tag too:
	// Leased counts the items leased to a worker; Retrying those queued
	// again after a failed attempt, among those Tags counts; Arrivals is
	// the rate the items arrive at, a second, and Service the time a task
	// holds a worker's slot, from its lease's start to its outcome's
	// arrival. A tag with none leased or retrying, or no rate or time
	// measured, is not in those maps.
	Want     map[string]int
	Leased   map[string]int
	Retrying map[string]int
	Arrivals map[string]float64
	Service  map[string]time.Duration
	// Keys counts, with Config.Key, the items of each key waiting for
	// their fair turn, and Started those of each key that had it (each
	// item once, retries aside; those that failed after TagWait too)
	// since the key last had none waiting or at work: a key with neither
	// is not in those maps, nor in Weights, which weighs each key in them
	// (see the package doc, under Fair shares).
	Keys, Started, Weights map[string]int
}

// WorkerStatus is what the master knows of one worker.
type WorkerStatus struct {
	// ID is given as the worker registers, and never reused.
	ID    uint64
	Addr  string
	Tags  []string
	Slots int
	// Free is how many more items the worker asked for and was not given.
	Free int
	// InFlight counts the items leased to it; Done the results it sent
	// back that were taken; Failed its failed attempts, by its work's error
	// or an expired lease; Moved the moves its work asked for that it sent
	// to the master (see Move; not those it went on with itself).
	InFlight int
	Done     int
	Failed   int
	Moved    int
	// Hung counts the items whose lease expired while the worker held
	// them, until their late result comes back: each keeps a slot of the
	// worker busy, and the worker goes on with its other slots. A worker
	// whose every slot is hung is given nothing until one comes back.
	Hung int
}

// measure reads what the metrics show of a master's Status beyond its
// Load: the workers' slots as its limit, its retries, and the workers it
// wants and the items queued by tag.
func measure(v any) meter.Extra {
	st, _ := v.(Status)
	slots := 0
	for _, w := range st.Workers {
		slots += w.Slots
	}
	x := meter.Extra{Limit: int64(slots), Retried: int64(st.Retried)}
	if len(st.Want) > 0 {
		x.Lines = make([]meter.Line, 0, len(st.Want))
		for tag, n := range st.Want {
			x.Lines = append(x.Lines, meter.Line{Tag: tag, Desired: int64(n), Backlog: int64(st.Tags[tag])})
		}
		slices.SortFunc(x.Lines, func(a, b meter.Line) int { return strings.Compare(a.Tag, b.Tag) })
	}
	return x
}

// statusOf returns the Status of what a master's book knows.
func statusOf(s census.Snapshot) Status {
	st := Status{
		Load: s.Load, Tags: s.Tags, Waiting: s.Waiting, Held: s.Held,
		Requeued: s.Requeued, Retried: s.Retried, Duplicates: s.Duplicates, Refused: s.Refused, Moves: s.Moves,
		Accepted: s.Accepted, Emitted: s.Emitted, Closed: s.Closed, Paced: s.Paced, Room: s.Room,
	}
	if len(s.Workers) > 0 {
		st.Workers = make([]WorkerStatus, len(s.Workers))
	}
	for i, w := range s.Workers {
		st.Workers[i] = WorkerStatus(w)
	}
	for _, l := range s.Lines {
		st.want(l)
	}
	if s.Keys != nil {
		st.Keys, st.Started, st.Weights = make(map[string]int, len(s.Keys)), make(map[string]int, len(s.Keys)), make(map[string]int, len(s.Keys))
	}
	for k, c := range s.Keys {
		st.Keys[k], st.Started[k], st.Weights[k] = c.Queued, c.Started, c.Weight
	}
	return st
}

// want adds what the book measured of the items of one tag.
func (st *Status) want(l census.Line) {
	if st.Want == nil {
		st.Want = map[string]int{}
	}
	st.Want[l.Tag] = l.Want
	put(&st.Leased, l.Tag, l.Leased)
	put(&st.Retrying, l.Tag, l.Retrying)
	put(&st.Arrivals, l.Tag, l.Rate)
	put(&st.Service, l.Tag, l.Service)
}

// put sets m[k] to v unless v is zero, making m if need be.
func put[V int | float64 | time.Duration](m *map[string]V, k string, v V) {
	if v == 0 {
		return
	}
	if *m == nil {
		*m = map[string]V{}
	}
	(*m)[k] = v
}
