package sim

// eventKind says what an event of a run is.
type eventKind uint8

const (
	evArrive  eventKind = iota + 1 // items arrive
	evEnd                          // arrivals end
	evSample                       // the traces take a sample
	evDone                         // a piece of work is done
	evTick                         // a timer fires
	evPull                         // demand for an agent: a Pull
	evPass                         // passes for an agent: a Pass
	evReserve                      // passes reserved of a pacer: a Reservation
	evLast                         // the agent after a pacer has ended: a Reservation with Last
	evClose                        // an agent's input ends: a Close
	evInput                        // items for an agent: an Input
	evShared                       // work served by processor sharing may be done
	evPaced                        // the agent after a pacer is told so: a Paced
)

// event is something that happens to a run, or to one of its agents, at a
// virtual instant, which the agenda keeps with it (see package
// internal/agenda).
type event struct {
	kind  eventKind
	agent int    // the agent it happens to
	n     uint64 // the work's ID, the timer's tag, or how many
	gen   uint64 // the generation of the timer, or of the wake-up
	batch any    // the items of an Input
}
